// A view of the page as a picture to keep: one SVG document with the view's drawings (its SVG
// layers copied, its canvases embedded as PNG images) and its visible texts (headings, facts,
// legends) placed where the page shows them; and that picture as a PNG. A recording of a range
// of steps draws the same picture at each step onto a canvas that MediaRecorder films.
//
// Only what is on screen is copied: the screen-reader tables (visually hidden) and controls are
// left out.

const SVG_NS = 'http://www.w3.org/2000/svg';
const FONT = "system-ui, 'Noto Sans', 'Noto Sans CJK KR', sans-serif";

/** Elements whose text is not part of the picture. */
const SKIP = 'button, select, input, textarea, .sr-only, details:not([open]) > :not(summary), [aria-hidden="true"] [aria-hidden="true"]';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

/** The SVG document of `element` as it is on screen now. */
export function viewToSvg(element: HTMLElement): { svg: string; width: number; height: number } {
  const box = element.getBoundingClientRect();
  const width = Math.ceil(box.width);
  const height = Math.ceil(box.height);
  const parts: string[] = [];
  const at = (r: DOMRect) => ({ x: r.left - box.left, y: r.top - box.top });

  for (const canvas of element.querySelectorAll('canvas')) {
    const r = canvas.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || canvas.closest(SKIP)) continue;
    let data: string;
    try {
      data = canvas.toDataURL('image/png');
    } catch {
      continue;
    }
    const p = at(r);
    parts.push(`<image x="${p.x}" y="${p.y}" width="${r.width}" height="${r.height}" href="${data}"/>`);
  }
  for (const svg of element.querySelectorAll('svg')) {
    if (svg.parentElement?.closest('svg')) continue;
    const r = svg.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const copy = svg.cloneNode(true) as SVGSVGElement;
    const p = at(r);
    copy.setAttribute('x', String(p.x));
    copy.setAttribute('y', String(p.y));
    copy.setAttribute('width', String(r.width));
    copy.setAttribute('height', String(r.height));
    copy.removeAttribute('class');
    copy.removeAttribute('style');
    // The texts' type and colour come from the page's style sheet (the stage's sizes, the
    // theme): written onto the copy, which has no style sheet.
    const texts = svg.querySelectorAll('text');
    copy.querySelectorAll('text').forEach((t, i) => {
      const style = getComputedStyle(texts[i]);
      t.setAttribute('font-size', style.fontSize);
      t.setAttribute('font-weight', style.fontWeight);
      t.setAttribute('font-family', style.fontFamily);
      t.setAttribute('fill', style.fill);
    });
    parts.push(new XMLSerializer().serializeToString(copy));
  }
  // The HTML texts: each run of text where it is drawn, in its font size, weight and colour.
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.replace(/\s+/g, ' ').trim() ?? '';
    const parent = node.parentElement;
    if (!text || !parent || parent.closest('svg') || parent.closest(SKIP)) continue;
    const style = getComputedStyle(parent);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    // One <text> per line box the text wraps into.
    const lines = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (lines.length === 0) continue;
    const words = text.split(' ');
    const perLine = Math.ceil(words.length / lines.length);
    lines.forEach((r, i) => {
      const p = at(r);
      const chunk = lines.length === 1 ? text : words.slice(i * perLine, (i + 1) * perLine).join(' ');
      const size = parseFloat(style.fontSize) || 14;
      parts.push(
        `<text x="${p.x}" y="${p.y + r.height * 0.78}" font-size="${size}" font-weight="${style.fontWeight}" fill="${style.color}"${
          style.fontFamily.includes('mono') ? ' font-family="monospace"' : ''
        }>${escapeXml(chunk)}</text>`,
      );
    });
  }
  const svg =
    `<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(FONT)}">` +
    `<rect width="100%" height="100%" fill="${getComputedStyle(document.documentElement).backgroundColor || '#ffffff'}"/>${parts.join('')}</svg>`;
  return { svg, width, height };
}

/** Draws an SVG document on `ctx` at (0, 0), `scale` device pixels per CSS pixel. */
export async function drawSvg(ctx: CanvasRenderingContext2D, svg: string, width: number, height: number, scale = 1): Promise<void> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    ctx.drawImage(image, 0, 0, width * scale, height * scale);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** `element` as a PNG, at `scale` pixels per CSS pixel. */
export async function viewToPng(element: HTMLElement, scale = 2): Promise<Blob> {
  const { svg, width, height } = viewToSvg(element);
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  await drawSvg(ctx, svg, width, height, scale);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be made'))), 'image/png'));
}

/**
 * Films `element` while `steps` moves the page from step to step: before each frame, `show(i)`
 * puts step `i` on screen and resolves once it is drawn; each step stays `frameMs` on film.
 * Returns a WebM video.
 */
export async function recordSteps(
  element: HTMLElement,
  steps: readonly number[],
  show: (step: number) => Promise<void>,
  frameMs = 600,
): Promise<Blob> {
  if (typeof MediaRecorder === 'undefined') throw new Error('this browser cannot record video');
  await show(steps[0]);
  const first = viewToSvg(element);
  const canvas = document.createElement('canvas');
  canvas.width = first.width;
  canvas.height = first.height;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  // Frames are pushed by hand (requestFrame), not sampled: a canvas that is not on the page is
  // not repainted, and a loaded machine may draw a step slower than any sampling rate.
  const stream = canvas.captureStream(0);
  const track = stream.getVideoTracks()[0] as MediaStreamTrack & { requestFrame?: () => void };
  const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t)) ?? 'video/webm';
  const recorder = new MediaRecorder(stream, { mimeType: type });
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size > 0) chunks.push(e.data);
  };
  const stopped = new Promise<void>((resolve) => {
    recorder.onstop = () => resolve();
  });
  recorder.start(250);
  for (const step of steps) {
    await show(step);
    const { svg } = viewToSvg(element);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    await drawSvg(ctx, svg, first.width, first.height);
    // The step stays on film for frameMs: the same picture, a frame every 100 ms.
    for (let held = 0; held < frameMs; held += 100) {
      track.requestFrame?.();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  recorder.stop();
  await stopped;
  stream.getTracks().forEach((t) => t.stop());
  return new Blob(chunks, { type: 'video/webm' });
}
