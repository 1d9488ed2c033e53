import sharp from 'sharp';

/** A colour in CIELAB (D65): L 0-100, a and b roughly -128..127. */
export interface Lab {
  l: number;
  a: number;
  b: number;
}

/** One dominant colour of an image and the share of the image's (opaque) area it covers, in percent. */
export interface PaletteColour extends Lab {
  /** The cluster's mean colour as sRGB hex, lower-case, without '#'. */
  rgb: string;
  share: number;
}

/**
 * Palette recipe (docs/search.md): the image is sampled at most 96 px on the long side
 * (nearest-neighbour, so no blended edge colours appear), pixels are binned in CIELAB, bins are
 * merged greedily into clusters whose centres lie within ΔE 12 of each other, then every bin is
 * re-assigned to its nearest centre once. Clusters under 1 % are dropped; at most 8 are kept.
 */
export const PALETTE = { sampleSide: 96, mergeRadius: 12, minShare: 1, maxColours: 8 } as const;

function srgbToLinear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function labF(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116;
}

/** sRGB (0-255 per channel) to CIELAB under D65. */
export function rgbToLab(r: number, g: number, b: number): Lab {
  const R = srgbToLinear(r);
  const G = srgbToLinear(g);
  const B = srgbToLinear(b);
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const fx = labF(x);
  const fy = labF(y);
  const fz = labF(z);
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

/** `RRGGBB` (with or without '#', any case) to CIELAB. */
export function hexToLab(hex: string): Lab {
  const value = hex.replace(/^#/, '');
  return rgbToLab(parseInt(value.slice(0, 2), 16), parseInt(value.slice(2, 4), 16), parseInt(value.slice(4, 6), 16));
}

/** CIE76 colour difference ΔE*ab: the Euclidean distance in CIELAB (about 2.3 is a just noticeable difference). */
export function deltaE(x: Lab, y: Lab): number {
  return Math.hypot(x.l - y.l, x.a - y.a, x.b - y.b);
}

interface Bin {
  count: number;
  lab: Lab;
  r: number;
  g: number;
  b: number;
}

interface Cluster {
  count: number;
  l: number;
  a: number;
  b: number;
  r: number;
  g: number;
  bl: number;
}

function addBin(cluster: Cluster, bin: Bin): void {
  cluster.count += bin.count;
  cluster.l += bin.lab.l * bin.count;
  cluster.a += bin.lab.a * bin.count;
  cluster.b += bin.lab.b * bin.count;
  cluster.r += bin.r;
  cluster.g += bin.g;
  cluster.bl += bin.b;
}

const centre = (c: Cluster): Lab => ({ l: c.l / c.count, a: c.a / c.count, b: c.b / c.count });
const emptyCluster = (): Cluster => ({ count: 0, l: 0, a: 0, b: 0, r: 0, g: 0, bl: 0 });

function nearest(centres: Lab[], lab: Lab): { index: number; distance: number } {
  let best = { index: -1, distance: Infinity };
  centres.forEach((c, index) => {
    const distance = deltaE(c, lab);
    if (distance < best.distance) best = { index, distance };
  });
  return best;
}

/** Opaque pixels binned in CIELAB (L by 5, a and b by 8), each bin with its mean colour. */
function binPixels(data: Buffer, channels: number): { bins: Bin[]; opaque: number } {
  const bins = new Map<string, { count: number; l: number; a: number; b: number; r: number; g: number; bl: number }>();
  let opaque = 0;
  for (let i = 0; i < data.length; i += channels) {
    if (channels === 4 && data[i + 3]! < 128) continue;
    opaque++;
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    const lab = rgbToLab(r, g, b);
    const key = `${Math.floor(lab.l / 5)}:${Math.floor(lab.a / 8)}:${Math.floor(lab.b / 8)}`;
    const bin = bins.get(key) ?? { count: 0, l: 0, a: 0, b: 0, r: 0, g: 0, bl: 0 };
    bin.count++;
    bin.l += lab.l;
    bin.a += lab.a;
    bin.b += lab.b;
    bin.r += r;
    bin.g += g;
    bin.bl += b;
    bins.set(key, bin);
  }
  const list = [...bins.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || (ka < kb ? -1 : 1))
    .map(([, s]) => ({ count: s.count, lab: { l: s.l / s.count, a: s.a / s.count, b: s.b / s.count }, r: s.r, g: s.g, b: s.bl }));
  return { bins: list, opaque };
}

/** Groups bins into clusters (greedy by size, then one re-assignment pass to the nearest centre). */
function clusterBins(bins: Bin[]): Cluster[] {
  const greedy: Cluster[] = [];
  for (const bin of bins) {
    const hit = nearest(greedy.map(centre), bin.lab);
    if (hit.index >= 0 && hit.distance <= PALETTE.mergeRadius) addBin(greedy[hit.index]!, bin);
    else {
      const cluster = emptyCluster();
      addBin(cluster, bin);
      greedy.push(cluster);
    }
  }
  const centres = greedy.map(centre);
  const refined = centres.map(emptyCluster);
  for (const bin of bins) addBin(refined[nearest(centres, bin.lab).index]!, bin);
  return refined.filter((c) => c.count > 0);
}

const hex2 = (value: number) => Math.round(value).toString(16).padStart(2, '0');

/** The palette of raw pixels (RGB or RGBA), largest share first. */
export function paletteOfPixels(data: Buffer, channels: number): PaletteColour[] {
  const { bins, opaque } = binPixels(data, channels);
  if (opaque === 0) return [];
  return clusterBins(bins)
    .map((c) => ({ ...centre(c), rgb: `${hex2(c.r / c.count)}${hex2(c.g / c.count)}${hex2(c.bl / c.count)}`, share: (100 * c.count) / opaque }))
    .filter((c) => c.share >= PALETTE.minShare)
    .sort((x, y) => y.share - x.share || x.rgb.localeCompare(y.rgb))
    .slice(0, PALETTE.maxColours)
    .map((c) => ({ l: round2(c.l), a: round2(c.a), b: round2(c.b), rgb: c.rgb, share: round2(c.share) }));
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * The dominant colours of an image file with their area shares (issue: colour search), computed at
 * import. An image sharp cannot decode has no palette ([]); transparent pixels do not count.
 */
export async function extractPalette(source: string | Buffer): Promise<PaletteColour[]> {
  try {
    const { data, info } = await sharp(source, { failOn: 'error' })
      .resize({ width: PALETTE.sampleSide, height: PALETTE.sampleSide, fit: 'inside', withoutEnlargement: true, kernel: 'nearest' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return paletteOfPixels(data, info.channels);
  } catch {
    return [];
  }
}
