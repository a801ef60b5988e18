// Saving a file the page made (a .slab scenario, a trace, a picture, a video): a download of
// an object URL, released once the browser has taken it.

export function download(name: string, data: Blob | string, type = 'text/plain;charset=utf-8'): void {
  const url = URL.createObjectURL(typeof data === 'string' ? new Blob([data], { type }) : data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
