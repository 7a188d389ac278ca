/**
 * Saving a file from the app: a Blob handed to the browser's download, no server involved.
 */

/** Start a download of `blob` as `filename` (a Blob URL and an <a download>; nothing leaves the tab). */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke later: the browser reads the URL asynchronously after the click.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
