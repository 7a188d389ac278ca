/**
 * Opening the checkpoint database (checkpoint_store.ts): schema upgrades that never hang on a
 * second tab (a blocked upgrade times out; an open connection steps aside for a newer one).
 */
import { openDB, type IDBPDatabase } from 'idb';
import { CheckpointError } from './errors';
import { migrate, type CheckpointDB } from './schema';
import { errName } from './checkpoint_tx';

/**
 * Open (creating or upgrading to `version`) the checkpoint database `dbName`. The connection
 * steps aside when another connection asks for a newer schema or deletes the database, and when
 * the browser closes it: `stepAside` gets the reason (the store then refuses every call).
 * @throws CheckpointError('newer-schema') when the database was upgraded by a newer build;
 *   ('upgrade-blocked') when another connection keeps the old schema open for longer than `blockedTimeoutMs`
 */
export function openCheckpointDb(
  dbName: string,
  version: number,
  blockedTimeoutMs: number,
  stepAside: (reason: string) => void,
): Promise<IDBPDatabase<CheckpointDB>> {
  return new Promise<IDBPDatabase<CheckpointDB>>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    openDB<CheckpointDB>(dbName, version, {
      upgrade(db, oldVersion, newVersion, tx) {
        migrate(db, oldVersion, newVersion ?? version, tx);
      },
      blocked(currentVersion) {
        timer ??= setTimeout(() => {
          if (settled) return;
          settled = true;
          reject(
            new CheckpointError(
              'upgrade-blocked',
              `checkpoint database '${dbName}': upgrading from schema ${currentVersion} to ${version} is blocked for ` +
                `${blockedTimeoutMs} ms by another tab or connection that keeps the old version open; close or reload the other tabs`,
            ),
          );
        }, blockedTimeoutMs);
      },
      blocking(currentVersion, blockedVersion) {
        // Another connection wants a newer schema: step aside instead of blocking it forever.
        stepAside(
          blockedVersion === null
            ? `another tab or connection is deleting '${dbName}'`
            : `another tab or connection is upgrading '${dbName}' from schema ${currentVersion} to ${blockedVersion}; reload this page`,
        );
      },
      terminated() {
        stepAside(`the browser closed the connection to '${dbName}'`);
      },
    }).then(
      (db) => {
        clearTimeout(timer);
        // Resolved after we gave up on a blocked upgrade: nobody holds this connection.
        if (settled) return db.close();
        settled = true;
        resolve(db);
      },
      (e: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(
          errName(e) === 'VersionError'
            ? new CheckpointError(
                'newer-schema',
                `checkpoint database '${dbName}' has a newer schema than this build (${version}); reload to get the new version of Harness Lab`,
                {
                  cause: e,
                },
              )
            : e,
        );
      },
    );
  });
}
