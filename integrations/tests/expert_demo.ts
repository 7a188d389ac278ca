/**
 * Test helper of integrations/tests (not shipped): print the scripted expert's actions for
 * each `suite/family/tN/SEED@HARNESS` argument as one JSON object {"<arg>": [action, …]}.
 * The server replays them deterministically, so a fake engine that emits them must pass.
 */
import { runExpertEpisode } from '../../src/harness/expert';
import { taskFromId } from '../../src/tasks';

const out: Record<string, string[]> = {};
for (const arg of process.argv.slice(2)) {
  const [task, harness] = arg.split('@');
  const ep = runExpertEpisode(taskFromId(task), harness);
  if (!ep.pass) throw new Error(`expert fails ${arg}`);
  out[arg] = ep.turns.map((t) => t.action);
}
process.stdout.write(JSON.stringify(out) + '\n');
