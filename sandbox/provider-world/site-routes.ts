import type { ServerResponse } from 'node:http';
import { sitePage } from './site-pages.ts';
import type { World } from './world.ts';

const TEST_PAGE = '<!DOCTYPE html><html><head><meta name="generator" content="WordPress 6.4.3"><title>test</title></head><body><p>test page</p></body></html>';

// `/sites/<domain>/…` serves each company's home page. `/sites/_test/…` holds
// pages for the fetcher's own tests: redirect chains and an endless body.
export function serveSite(world: World, path: string, res: ServerResponse): void {
  const [, domain = '', ...rest] = path.split('/');
  if (domain === '_test') return serveTestPage(rest, res);
  const company = world.companyByDomain(decodeURIComponent(domain));
  if (!company) {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    return;
  }
  if (rest.length === 0) {
    // Like a real server: the bare directory redirects to its slash form.
    res.writeHead(301, { location: `/sites/${company.domain}/` }).end();
    return;
  }
  const page = sitePage(world.seed, company);
  res.writeHead(200, { ...page.headers, 'set-cookie': page.cookies }).end(page.html);
}

function serveTestPage(rest: string[], res: ServerResponse): void {
  const [kind, arg] = rest;
  if (kind === 'redirect') {
    const hops = Number(arg) || 0;
    if (hops <= 0) {
      res.writeHead(200, { 'content-type': 'text/html', server: 'nginx/1.25.3' }).end(TEST_PAGE);
      return;
    }
    res.writeHead(302, { location: `/sites/_test/redirect/${hops - 1}` }).end();
    return;
  }
  if (kind === 'huge') {
    res.writeHead(200, { 'content-type': 'text/html', server: 'nginx/1.25.3' });
    res.write(TEST_PAGE.replace('</body></html>', ''));
    const chunk = `<p>${'lorem ipsum '.repeat(1000)}</p>\n`;
    let sent = 0;
    // Endless in practice (64 MiB): only a client that caps the body finishes.
    const pump = () => {
      while (sent < 64 * 1024 * 1024) {
        if (res.destroyed) return;
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('</body></html>');
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
    return;
  }
  res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
}
