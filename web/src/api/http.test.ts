import { describe, expect, it } from 'vitest';
import { nextLink } from './http.ts';

describe('nextLink: the next page named by a Link header', () => {
  it('finds rel="next" among several links, quoted or not, in any case', () => {
    expect(nextLink('</api/groups?after=abc>; rel="next"')).toBe('/api/groups?after=abc');
    expect(nextLink('</first>; rel="first", </api/transcripts?after=x%3D>; rel=next')).toBe(
      '/api/transcripts?after=x%3D',
    );
    expect(nextLink('</p2>; title="more"; REL="Next"')).toBe('/p2');
  });

  it('accepts next among several relation types of one link', () => {
    expect(nextLink('</p2>; rel="prefetch next"')).toBe('/p2');
  });

  it('answers null without a header, without a next link, or for a malformed one', () => {
    expect(nextLink(null)).toBeNull();
    expect(nextLink('')).toBeNull();
    expect(nextLink('</p0>; rel="prev"')).toBeNull();
    expect(nextLink('</p2>; rel="nextpage"')).toBeNull();
    expect(nextLink('/p2; rel="next"')).toBeNull();
  });
});
