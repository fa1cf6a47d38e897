// Avatar and sport icon rendering: deterministic in style × palette × seed.
import { expect } from 'chai';
import { AVATAR_PALETTES, AVATAR_STYLES, renderAvatarSvg, renderSportIconSvg } from '../../../domain/avatar/avatar.ts';

describe('avatar rendering', () => {
  it('renders every style × palette pairing as an SVG document', () => {
    for (const style of AVATAR_STYLES) {
      for (const palette of AVATAR_PALETTES) {
        const svg = renderAvatarSvg({ style, palette, seed: 'seed' });
        expect(svg).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        expect(svg).to.match(/<\/svg>$/);
      }
    }
  });

  it('same seed, same image; another seed, palette or style, another image', () => {
    const base = renderAvatarSvg({ style: 'dots', palette: 'ocean', seed: 'abc' });
    expect(renderAvatarSvg({ style: 'dots', palette: 'ocean', seed: 'abc' })).to.equal(base);
    expect(renderAvatarSvg({ style: 'dots', palette: 'ocean', seed: 'abd' })).to.not.equal(base);
    expect(renderAvatarSvg({ style: 'dots', palette: 'rose', seed: 'abc' })).to.not.equal(base);
    expect(renderAvatarSvg({ style: 'rings', palette: 'ocean', seed: 'abc' })).to.not.equal(base);
  });

  it('sport icons escape the key they show', () => {
    expect(renderSportIconSvg('ice_hockey')).to.contain('>IH<');
    expect(renderSportIconSvg('a<b')).to.not.contain('<b');
  });
});
