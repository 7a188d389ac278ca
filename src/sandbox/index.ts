/** The tool sandbox: contract types, the in-memory workspace and the service file formats. */
export * from './types';
export * from './sandbox';
export * from './services';
