// The scenario inside a share link: the `s` parameter of the query.
//
//   s=1.<payload>      link format 1: the scenario text as UTF-8, compressed with raw DEFLATE
//                      (CompressionStream 'deflate-raw'), in base64url without padding
//
// Rules:
//  - The link format carries any scenario text; the scenario says its own format on its first
//    line (`slabscope-scenario 1` or `2`), so a new scenario format needs no new link format.
//  - A link is versioned by the digits before the first dot. A version this build does not
//    know is refused by name, never guessed at. Links of every released version stay readable:
//    web/scenario/fixtures/links.json keeps one link per version with the text it must give.
//  - Everything in a link is untrusted. Decoding never throws and never hangs: it returns the
//    text or a LinkError (an i18n key under `link.` and its arguments). The payload is bounded
//    before anything is inflated (MAX_LINK_CHARS), and inflating stops as soon as the text would
//    pass the scenario format's own limit (MAX_SCENARIO_BYTES), so a small link cannot expand
//    into a huge one.
//  - The text that comes out is only ever handed to the scenario parser and shown as text.

/** The link format this build writes. */
export const LINK_VERSION = 1;
/** Link formats this build reads. */
export const LINK_VERSIONS: readonly number[] = [1];
/** The query parameter that carries the scenario. */
export const LINK_PARAM = 's';
/**
 * The longest `s` value a share link may carry. Longer scenarios are offered as a .slab file
 * instead: some chat tools and mail clients cut URLs beyond a few thousand characters.
 */
export const MAX_LINK_CHARS = 6000;
/** The scenario format's limit on text (docs/scenario-format.md: at most 1 MiB). */
export const MAX_SCENARIO_BYTES = 1 << 20;

export type LinkErrorKey = 'link.version' | 'link.encoding' | 'link.corrupt' | 'link.tooLong' | 'link.tooLarge' | 'link.text' | 'link.empty';

/** Why a link's scenario cannot be read: an i18n key and the values its message names. */
export interface LinkError {
  key: LinkErrorKey;
  args: Record<string, string | number>;
}

export type Decoded = { ok: true; text: string } | { ok: false; error: LinkError };

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The `s` value for `text`: `1.` and the compressed text. */
export async function encodeScenario(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const packed = await pipe(bytes, new CompressionStream('deflate-raw'), Infinity);
  return `${LINK_VERSION}.${toBase64Url(packed.bytes)}`;
}

/** Whether `encoded` fits in a link (else the scenario is offered as a file). */
export function fitsInLink(encoded: string): boolean {
  return encoded.length <= MAX_LINK_CHARS;
}

/** The scenario text of an `s` value, or why there is none. Never throws. */
export async function decodeScenario(value: string): Promise<Decoded> {
  const fail = (key: LinkErrorKey, args: Record<string, string | number> = {}): Decoded => ({ ok: false, error: { key, args } });
  if (value.length === 0) return fail('link.empty');
  if (value.length > MAX_LINK_CHARS + 16) return fail('link.tooLong', { length: value.length, max: MAX_LINK_CHARS });
  const dot = value.indexOf('.');
  const head = dot < 0 ? value : value.slice(0, dot);
  if (!/^[0-9]{1,6}$/.test(head)) return fail('link.encoding');
  const version = Number(head);
  if (!LINK_VERSIONS.includes(version)) return fail('link.version', { version, known: LINK_VERSIONS.join(', ') });
  const body = dot < 0 ? '' : value.slice(dot + 1);
  if (body.length === 0) return fail('link.empty');
  const bytes = fromBase64Url(body);
  if (!bytes) return fail('link.encoding');
  let inflated: { bytes: Uint8Array; cut: boolean };
  try {
    inflated = await pipe(bytes, new DecompressionStream('deflate-raw'), MAX_SCENARIO_BYTES);
  } catch {
    return fail('link.corrupt');
  }
  if (inflated.cut) return fail('link.tooLarge', { max: MAX_SCENARIO_BYTES });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflated.bytes);
  } catch {
    return fail('link.text');
  }
  return { ok: true, text };
}

/**
 * `input` through `stream`, collected; reading stops (and the stream is cancelled) once more
 * than `limit` bytes have come out, with `cut` set. Rejects when the stream rejects its input
 * (a corrupt or truncated DEFLATE stream).
 */
async function pipe(input: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const writer = stream.writable.getWriter();
  // The writer's promises reject too when the data is bad; the reader reports it.
  writer.write(input as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { bytes: new Uint8Array(0), cut: true };
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return { bytes: out, cut: false };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url text without padding, or null when it is not one. */
function fromBase64Url(text: string): Uint8Array | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
