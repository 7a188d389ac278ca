// Tiny entry used by the CLI's headless-browser unit test.
export function echo(x: number): { doubled: number; hasGpu: boolean } {
  return { doubled: x * 2, hasGpu: 'gpu' in navigator };
}
