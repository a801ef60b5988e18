// What d3 needs of the SVG DOM that jsdom does not have: `element.transform.baseVal.consolidate()`,
// which d3-interpolate calls to interpolate a `transform` attribute in a transition. Installed by
// the golden drawing tests only.
//
// The transforms the views write are translations and scales (and matrices, which a finished
// transition can write back); anything else throws, so a view that starts rotating fails
// loudly here instead of animating wrongly.

type Matrix = { a: number; b: number; c: number; d: number; e: number; f: number };

const IDENTITY: Matrix = { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 };

function multiply(m: Matrix, n: Matrix): Matrix {
  return {
    a: m.a * n.a + m.c * n.b,
    b: m.b * n.a + m.d * n.b,
    c: m.a * n.c + m.c * n.d,
    d: m.b * n.c + m.d * n.d,
    e: m.a * n.e + m.c * n.f + m.e,
    f: m.b * n.e + m.d * n.f + m.f,
  };
}

/** The matrix of a `transform` attribute, or null when it has no transform. */
export function parseTransform(text: string): Matrix | null {
  const parts = [...text.matchAll(/(\w+)\s*\(([^)]*)\)/g)];
  if (parts.length === 0) return null;
  return parts.reduce((m, [, name, args]) => {
    const v = args
      .split(/[\s,]+/)
      .filter((s) => s !== '')
      .map(Number);
    switch (name) {
      case 'translate':
        return multiply(m, { ...IDENTITY, e: v[0] ?? 0, f: v[1] ?? 0 });
      case 'scale':
        return multiply(m, { ...IDENTITY, a: v[0] ?? 1, d: v[1] ?? v[0] ?? 1 });
      case 'matrix': {
        const [a, b, c, d, e, f] = v;
        return multiply(m, { a, b, c, d, e, f });
      }
      default:
        throw new Error(`the test DOM cannot interpolate transform ${name}()`);
    }
  }, IDENTITY);
}

/** Gives every SVG element of this DOM the `transform.baseVal.consolidate()` d3 reads. */
export function installSvgTransforms(): void {
  if ('transform' in SVGElement.prototype) return;
  Object.defineProperty(SVGElement.prototype, 'transform', {
    configurable: true,
    get(this: SVGElement) {
      const matrix = parseTransform(this.getAttribute('transform') ?? '');
      return { baseVal: { consolidate: () => (matrix ? { matrix } : null) } };
    },
  });
}
