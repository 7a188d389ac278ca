/**
 * The app's one tokenizer (the default vocabulary, DEFAULT_TOKENIZER_URL, the one runs sample
 * with), fetched once while the app loads (module evaluation: after load the app makes no
 * network request) and shared by the views that count or decode tokens (Inspect, Trajectories).
 */
import { loadTokenizer, type Tokenizer } from '../model/tokenizer';

export const appTokenizer: Promise<Tokenizer> = loadTokenizer();
// A failure is reported by each view where it matters; never an unhandled rejection.
appTokenizer.catch(() => {});
