import type { Page, TestInfo } from '@playwright/test';

/** Full-page screenshots at 1280×800 and 390×844, attached to the test report; the viewport ends at 1280×800. */
export async function screenshots(p: Page, info: TestInfo, name: string): Promise<void> {
  for (const [w, h] of [
    [1280, 800],
    [390, 844],
  ]) {
    await p.setViewportSize({ width: w, height: h });
    const path = info.outputPath(`${name}-${w}.png`);
    await p.screenshot({ path, fullPage: true });
    await info.attach(`${name}-${w}`, { path, contentType: 'image/png' });
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}
