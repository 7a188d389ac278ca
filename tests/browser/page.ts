// Entry of the browser test page. Tests call window.hlabRun(modulePath, exportName, ...args):
// the module is imported through Vite (TypeScript, WGSL ?raw) and the export is awaited.
declare global {
  interface Window {
    hlabRun: (path: string, fn: string, ...args: unknown[]) => Promise<unknown>;
    hlabReady: boolean;
  }
}

window.hlabRun = async (path, fn, ...args) => {
  const mod = (await import(/* @vite-ignore */ path)) as Record<string, unknown>;
  const f = mod[fn];
  if (typeof f !== 'function') throw new Error(`${path} has no exported function ${fn}`);
  return await (f as (...a: unknown[]) => unknown)(...args);
};
window.hlabReady = true;
export {};
