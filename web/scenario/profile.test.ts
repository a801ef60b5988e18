import { describe, expect, it } from 'vitest';
import { profileOf, withProfile } from './profile';

describe('the profile line', () => {
  it('reads the profile a text names, linux-6.6 without one', () => {
    expect(profileOf('slabscope-scenario 3\nprofile linux-7.2\ncache a size=64\n')).toBe('linux-7.2');
    expect(profileOf('slabscope-scenario 3\n  profile linux-6.12   # LTS\n')).toBe('linux-6.12');
    expect(profileOf('slabscope-scenario 3\n# profile linux-7.2 in a comment\ncache a size=64\n')).toBe('linux-6.6');
  });

  it('replaces the line, or adds one under the format line and its comments', () => {
    expect(withProfile('slabscope-scenario 3\nprofile linux-6.6\ncache a size=64\n', 'linux-7.2')).toBe('slabscope-scenario 3\nprofile linux-7.2\ncache a size=64\n');
    expect(withProfile('slabscope-scenario 3\n# what it shows\n# more\ncache a size=64\n', 'linux-6.18')).toBe(
      'slabscope-scenario 3\n# what it shows\n# more\nprofile linux-6.18\ncache a size=64\n',
    );
    expect(withProfile('cache a size=64\n', 'linux-6.12')).toBe('profile linux-6.12\ncache a size=64\n');
    const text = withProfile('slabscope-scenario 3\ncache a size=64\n', 'linux-7.2');
    expect(profileOf(text)).toBe('linux-7.2');
    expect(profileOf(withProfile(text, 'linux-6.6'))).toBe('linux-6.6');
  });
});
