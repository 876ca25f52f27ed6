import type { ServerResponse } from 'node:http';
import type { WorldPerson } from './generate-world.ts';
import type { World } from './world.ts';

// The made-up people's profile pictures, drawn and served by the stand-in itself: a photo URL of the stand-in world
// never sends a browser to a real third party (LinkedIn's image host) about a person who does not exist, and works
// offline. An avatar in the style of a default profile picture: the initials on a colour of the person's own.

export const PHOTO_PREFIX = '/photos/';

/** The person's picture on this stand-in (`baseUrl`: the server's own address). */
export function photoUrl(baseUrl: string, person: WorldPerson): string {
  return `${baseUrl}${PHOTO_PREFIX}${person.index.toString(36)}.svg`;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

function avatarSvg(person: WorldPerson): string {
  const initials = [person.firstName, person.lastName].map((name) => name.charAt(0).toLocaleUpperCase()).join('');
  // Dark enough behind white letters for contrast; the hue spreads people apart.
  const hue = (person.index * 137) % 360;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200">',
    `<rect width="200" height="200" fill="hsl(${hue}, 45%, 32%)"/>`,
    `<text x="100" y="100" dy="0.35em" text-anchor="middle" font-family="sans-serif" font-size="84" fill="#fff">${escapeXml(initials)}</text>`,
    '</svg>',
  ].join('');
}

/** `GET /photos/<id>.svg`: the picture, or 404 for no such person. */
export function servePhoto(world: World, path: string, res: ServerResponse): void {
  const match = /^\/photos\/([0-9a-z]+)\.svg$/.exec(path);
  const person = match ? world.people[Number.parseInt(match[1], 36)] : undefined;
  if (!person) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such photo');
    return;
  }
  res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }).end(avatarSvg(person));
}
