// Avatars: a style × palette × seed triple, rendered as a deterministic SVG (same triple, same
// bytes). Pure: a seeded PRNG (FNV-1a hash → mulberry32) stands in for randomness.

import { seededRandom } from '../random.ts';

export const AVATAR_STYLES = ['dots', 'rings', 'stripes', 'grid'] as const;
export const AVATAR_PALETTES = ['ember', 'forest', 'ocean', 'grape', 'slate', 'mint', 'rose', 'gold'] as const;
export const AVATAR_SEED_LENGTH_MIN = 1;
export const AVATAR_SEED_LENGTH_MAX = 32;
const AVATAR_SIZE_PX = 64;

export type AvatarStyle = (typeof AVATAR_STYLES)[number];
export type AvatarPalette = (typeof AVATAR_PALETTES)[number];

export interface Avatar {
  style: AvatarStyle;
  palette: AvatarPalette;
  seed: string;
}

/** Background first, then three foreground colours. */
const PALETTE_COLOURS: Record<AvatarPalette, readonly [string, string, string, string]> = {
  ember: ['#2b0f0a', '#e4572e', '#f3a712', '#ffd166'],
  forest: ['#0f2417', '#2d6a4f', '#52b788', '#b7e4c7'],
  ocean: ['#03131f', '#0077b6', '#00b4d8', '#90e0ef'],
  grape: ['#1d0b2b', '#6a4c93', '#9d4edd', '#e0aaff'],
  slate: ['#1b1f24', '#4a5561', '#8d99ae', '#d9dee4'],
  mint: ['#0b2620', '#2ec4b6', '#80ffdb', '#e6fff7'],
  rose: ['#2a0a14', '#c9184a', '#ff758f', '#ffccd5'],
  gold: ['#231a02', '#b8860b', '#e9c46a', '#fff3b0'],
};

/** 32-bit FNV-1a over the UTF-8 bytes of the text. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function shapes(style: AvatarStyle, random: () => number, colours: readonly string[]): string[] {
  const size = AVATAR_SIZE_PX;
  const pick = () => colours[1 + Math.floor(random() * 3)] ?? colours[1];
  const out: string[] = [];
  switch (style) {
    case 'dots': {
      // a mirrored 5×5 field of dots: symmetric shapes read as faces/marks
      const cell = size / 5;
      for (let row = 0; row < 5; row += 1) {
        for (let col = 0; col < 3; col += 1) {
          if (random() < 0.45) continue;
          const r = round2(cell * (0.25 + random() * 0.2));
          const fill = pick();
          for (const c of col === 2 ? [2] : [col, 4 - col]) {
            out.push(
              `<circle cx="${round2(cell * c + cell / 2)}" cy="${round2(cell * row + cell / 2)}" r="${r}" fill="${fill}"/>`,
            );
          }
        }
      }
      break;
    }
    case 'rings': {
      const count = 3 + Math.floor(random() * 3);
      const cx = round2(size / 2 + (random() - 0.5) * 8);
      const cy = round2(size / 2 + (random() - 0.5) * 8);
      for (let i = 0; i < count; i += 1) {
        const r = round2((size / 2) * (1 - i / (count + 0.5)));
        out.push(
          `<circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="${pick()}" stroke-width="${round2(2 + random() * 4)}"/>`,
        );
      }
      break;
    }
    case 'stripes': {
      const count = 4 + Math.floor(random() * 4);
      const angle = [0, 45, 90, 135][Math.floor(random() * 4)] ?? 0;
      const width = size / count;
      const bars: string[] = [];
      for (let i = 0; i < count; i += 1) {
        if (random() < 0.3) continue;
        bars.push(
          `<rect x="${round2(i * width)}" y="-16" width="${round2(width * (0.4 + random() * 0.5))}" height="${size + 32}" fill="${pick()}"/>`,
        );
      }
      out.push(`<g transform="rotate(${angle} ${size / 2} ${size / 2})">${bars.join('')}</g>`);
      break;
    }
    case 'grid': {
      const cells = 4;
      const cell = size / cells;
      for (let row = 0; row < cells; row += 1) {
        for (let col = 0; col < cells; col += 1) {
          if (random() < 0.4) continue;
          out.push(
            `<rect x="${round2(col * cell + 1)}" y="${round2(row * cell + 1)}" width="${round2(cell - 2)}" height="${round2(cell - 2)}" rx="3" fill="${pick()}"/>`,
          );
        }
      }
      break;
    }
    default: {
      const unreachable: never = style;
      throw new Error(`unknown avatar style ${String(unreachable)}`);
    }
  }
  return out;
}

/** The avatar as an SVG document. Deterministic in (style, palette, seed). */
export function renderAvatarSvg(avatar: Avatar): string {
  const colours = PALETTE_COLOURS[avatar.palette];
  const random = seededRandom(fnv1a(`${avatar.style}:${avatar.seed}`));
  const size = AVATAR_SIZE_PX;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img">`,
    `<clipPath id="c"><rect width="${size}" height="${size}" rx="12"/></clipPath>`,
    `<g clip-path="url(#c)"><rect width="${size}" height="${size}" fill="${colours[0]}"/>`,
    ...shapes(avatar.style, random, colours),
    '</g></svg>',
  ].join('');
}

/** Generated avatar from caller-supplied entropy (used when joining the leaderboard). */
export function generatedAvatar(entropy: Uint8Array): Avatar {
  const style = AVATAR_STYLES[(entropy[0] ?? 0) % AVATAR_STYLES.length] ?? 'dots';
  const palette = AVATAR_PALETTES[(entropy[1] ?? 0) % AVATAR_PALETTES.length] ?? 'ember';
  const seed = Array.from(entropy.slice(2, 10), (b) => b.toString(16).padStart(2, '0')).join('') || 'seed';
  return { style, palette, seed };
}

/** The avatar shown for a handle that never chose one: derived from the handle itself. */
export function defaultAvatarFor(handle: string): Avatar {
  const hash = fnv1a(handle);
  return {
    style: AVATAR_STYLES[hash % AVATAR_STYLES.length] ?? 'dots',
    palette: AVATAR_PALETTES[(hash >>> 8) % AVATAR_PALETTES.length] ?? 'ember',
    seed: handle,
  };
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch] ?? ch,
  );

/** A sport icon: a roundel in a colour derived from the sport key, with its initials. */
export function renderSportIconSvg(sportKey: string): string {
  const palette = PALETTE_COLOURS[AVATAR_PALETTES[fnv1a(sportKey) % AVATAR_PALETTES.length] ?? 'slate'];
  const words = sportKey.split(/[_\-.]+/).filter(Boolean);
  const initials = (
    words.length > 1
      ? words
          .slice(0, 2)
          .map((w) => w[0])
          .join('')
      : sportKey.slice(0, 2)
  ).toUpperCase();
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32" role="img">',
    `<title>${escapeXml(sportKey)}</title>`,
    `<circle cx="16" cy="16" r="15" fill="${palette[1]}" stroke="${palette[3]}" stroke-width="2"/>`,
    `<text x="16" y="21" text-anchor="middle" font-family="sans-serif" font-size="13" font-weight="700" fill="${palette[3]}">${escapeXml(initials)}</text>`,
    '</svg>',
  ].join('');
}
