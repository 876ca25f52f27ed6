import { rngFor } from './prng.ts';
import type { WorldCompany } from './generate-world.ts';

// Each company's home page carries the traces real sites leave (generator
// meta tags, script URLs, server headers, cookies), so the real fingerprint
// matcher has something genuine to find. `technologies` lists what a correct
// detector must at least report.

interface Block {
  name: string;
  headers?: Record<string, string>;
  cookies?: string[];
  head?: string;
  body?: string;
}

const PLATFORMS: Block[] = [
  { name: 'WordPress', headers: { 'x-powered-by': 'PHP/8.2.12', link: '<https://example.org/wp-json/>; rel="https://api.w.org/"' },
    head: '<meta name="generator" content="WordPress 6.4.3">\n<link rel="stylesheet" href="/wp-content/themes/astra/style.css?ver=4.6.4">\n<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1"></script>' },
  { name: 'Shopify', headers: { 'x-shopid': '5483923', 'x-shopify-stage': 'production' }, cookies: ['_shopify_y=3f9a0c1d-77; Path=/; Max-Age=31536000', '_shopify_s=8d1e; Path=/'],
    head: '<link rel="preconnect" href="https://cdn.shopify.com">\n<script src="https://cdn.shopify.com/s/trekkie.storefront.min.js"></script>' },
  { name: 'Next.js', headers: { 'x-powered-by': 'Next.js', server: 'Vercel', 'x-vercel-id': 'fra1::iad1::sandbox' },
    body: '<div id="__next"></div>\n<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{}},"page":"/","buildId":"sandbox"}</script>' },
  { name: 'Drupal', headers: { 'x-generator': 'Drupal 10 (https://www.drupal.org)', 'x-drupal-cache': 'HIT' },
    head: '<meta name="Generator" content="Drupal 10 (https://www.drupal.org)">' },
  { name: 'Webflow', head: '<meta content="Webflow" name="generator">' },
  { name: 'HubSpot CMS Hub', headers: { 'x-hs-hub-id': '4481210', 'x-powered-by': 'HubSpot' }, head: '<meta name="generator" content="HubSpot">' },
  { name: 'Microsoft ASP.NET', headers: { 'x-powered-by': 'ASP.NET', 'x-aspnet-version': '4.0.30319', server: 'Microsoft-IIS/10.0' }, cookies: ['ASP.NET_SessionId=kx2v0m; path=/; HttpOnly'] },
];

const SERVERS: Block[] = [
  { name: 'Nginx', headers: { server: 'nginx/1.25.3' } },
  { name: 'Cloudflare', headers: { server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f6789-FRA', 'cf-cache-status': 'DYNAMIC' } },
  { name: 'Apache HTTP Server', headers: { server: 'Apache/2.4.58 (Ubuntu)' } },
  { name: 'Amazon CloudFront', headers: { via: '1.1 3f2a.cloudfront.net (CloudFront)', 'x-amz-cf-id': 'sandbox-cf-id==' } },
];

const ADD_ONS: Block[] = [
  { name: 'Google Analytics', head: '<script async src="https://www.googletagmanager.com/gtag/js?id=G-SANDBOX1"></script>' },
  { name: 'Google Tag Manager', head: '<script async src="https://www.googletagmanager.com/gtm.js?id=GTM-SANDBOX"></script>' },
  { name: 'HubSpot', body: '<!-- Start of HubSpot Embed Code -->\n<script id="hs-script-loader" async defer src="//js.hs-scripts.com/4481210.js"></script>' },
  { name: 'Hotjar', head: '<script async src="https://static.hotjar.com/c/hotjar-3301234.js?sv=6"></script>' },
  { name: 'Intercom', body: '<script async src="https://widget.intercom.io/widget/sbx123"></script>\n<script async src="https://js.intercomcdn.com/frame-modern.js"></script>\n<script src="https://static.intercomcdn.com/intercom.v1.js"></script>' },
  { name: 'Segment', head: '<script src="https://cdn.segment.com/analytics.js/v1/sbxkey/analytics.min.js"></script>' },
  { name: 'Cookiebot', head: '<script id="Cookiebot" src="https://consent.cookiebot.com/uc.js" data-cbid="sandbox"></script>' },
  { name: 'OneTrust', head: '<script src="https://cdn.cookielaw.org/scripttemplates/otSDKStub.js" data-domain-script="sbx"></script>', cookies: ['OptanonConsent=isGpcEnabled=0; Path=/'] },
  // No `_mkto_trk` cookie: Wappalyzer's data also files it under PyScript, a false positive.
  { name: 'Marketo', body: '<script src="https://munchkin.marketo.net/munchkin.js"></script>' },
  { name: 'Linkedin Insight Tag', body: '<script async src="https://snap.licdn.com/li.lms-analytics/insight.min.js"></script>' },
  { name: 'Facebook Pixel', body: '<script async src="https://connect.facebook.net/en_US/fbevents.js"></script>' },
  { name: 'jQuery', head: '<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>' },
  { name: 'Zendesk', body: '<script id="ze-snippet" src="https://static.zdassets.com/ekr/snippet.js?key=sbx"></script>' },
];

export interface SitePage {
  html: string;
  headers: Record<string, string>;
  cookies: string[];
  technologies: string[];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function sitePage(seed: number, company: WorldCompany): SitePage {
  const rng = rngFor(seed, `site:${company.index}`);
  const platform = rng.pick(PLATFORMS);
  // ASP.NET and Vercel-hosted Next.js bring their own server header.
  const server = platform.headers?.server ? null : rng.pick(SERVERS);
  const addOns = ADD_ONS.filter(() => rng.chance(0.25));
  const blocks = [platform, ...(server ? [server] : []), ...addOns];
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
  const cookies: string[] = [];
  for (const block of blocks) {
    Object.assign(headers, block.headers);
    cookies.push(...(block.cookies ?? []));
  }
  const title = escapeHtml(company.name);
  const html = `<!DOCTYPE html>
<html lang="${company.locale.slice(0, 2)}">
<head>
<meta charset="utf-8">
<title>${title} | ${escapeHtml(company.industry)}</title>
<meta name="description" content="${escapeHtml(company.description)}">
${blocks.map((b) => b.head ?? '').filter(Boolean).join('\n')}
</head>
<body>
<header><nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main><h1>${title}</h1><p>${escapeHtml(company.description)}</p></main>
<footer>&copy; ${title}, ${escapeHtml(company.city)}</footer>
${blocks.map((b) => b.body ?? '').filter(Boolean).join('\n')}
</body>
</html>
`;
  return { html, headers, cookies, technologies: blocks.map((b) => b.name).sort() };
}
