/**
 * Checkpoint storage: IndexedDB store (checkpoint_store.ts), its schema (schema.ts), the pure
 * serialization (serialize.ts) and export file format (export_file.ts), retention (retention.ts)
 * and errors.
 * docs/STORAGE.md describes the formats and the commit protocol.
 */
export * from './errors';
export * from './serialize';
export * from './export_file';
export * from './retention';
export * from './schema';
export * from './checkpoint_store';
