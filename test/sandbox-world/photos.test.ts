import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';

// The made-up people's pictures come from the stand-in itself: a browser showing a job never asks a real third
// party (LinkedIn's image host) about a person who does not exist, and the pictures load offline.
let handle: ProviderWorldHandle;
beforeAll(async () => { handle = await startProviderWorld({ seed: 5, now: new Date('2026-06-15T12:00:00Z') }); });
afterAll(async () => { await handle.close(); });

const PICTURE_KEY = /photo|avatar|pic|picture|image|thumbnail|banner/i;

/** Every string under a key that names a picture, anywhere in a reply. */
function pictureUrls(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return PICTURE_KEY.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => pictureUrls(item, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([name, item]) => pictureUrls(item, name));
  return [];
}

async function get(path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${handle.url}${path}`, { ...init, headers: { 'x-api-key': 'k', 'X-Api-Key': 'k', ...init.headers } });
  expect(response.status).toBe(200);
  return response.json();
}

describe('the stand-in world\'s pictures', () => {
  it('every picture URL in the providers\' replies points at the stand-in, and each answers an image', async () => {
    const people = handle.world.samplePeople({ knownTo: 'both', withPosts: true }, 12);
    const urls: string[] = [];
    for (const person of people) {
      urls.push(...pictureUrls(await get(`/apollo/api/v1/people/match?email=${encodeURIComponent(person.email)}`, { method: 'POST' })));
      urls.push(...pictureUrls(await get(`/pdl/v5/person/enrich?email=${encodeURIComponent(person.email)}`)));
      urls.push(...pictureUrls(await get(`/social/v1/linkedin/profiles?url=${encodeURIComponent(person.linkedinUrl)}`)));
      urls.push(...pictureUrls(await get(`/social/v1/linkedin/profiles/posts?url=${encodeURIComponent(person.linkedinUrl)}&limit=3`)));
    }
    // Apollo leaves a quarter of its photos out, as real records do; the rest and Social Fetch's avatars are here.
    expect(urls.length).toBeGreaterThan(people.length * 2);
    const outside = urls.filter((url) => !url.startsWith(`${handle.url}/`));
    expect(outside).toEqual([]);
    for (const url of [...new Set(urls)].slice(0, 8)) {
      const picture = await fetch(url);
      expect(picture.status).toBe(200);
      expect(picture.headers.get('content-type')).toBe('image/svg+xml');
      expect(await picture.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s);
    }
  });

  it('the world itself names no outside picture, and an unknown picture is 404', async () => {
    expect(JSON.stringify(handle.world.people)).not.toMatch(/licdn|\.jpe?g|\.png/);
    expect((await fetch(`${handle.url}/photos/zzzzzz.svg`)).status).toBe(404);
    expect((await fetch(`${handle.url}/photos/../sites/x`)).status).not.toBe(200);
  });
});
