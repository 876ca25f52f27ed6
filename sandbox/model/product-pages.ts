/** Product pages the sandbox serves at `/products/<slug>/`, for product-context extraction offline. */
interface ProductPage {
  name: string;
  title: string;
  description: string;
  headline: string;
  intro: string;
  features: string[];
  audience: string[];
}

const PAGES: Record<string, ProductPage> = {
  'pipeline-pilot': {
    name: 'PipelinePilot',
    title: 'PipelinePilot – The sales CRM that fills your pipeline',
    description: 'PipelinePilot is a sales CRM that researches prospects, scores leads and writes the first e-mail for your reps.',
    headline: 'Close more deals with less busywork',
    intro: 'PipelinePilot keeps every deal, contact and conversation in one place and tells your reps who to call next.',
    features: ['Automatic lead scoring', 'Prospect research in one click', 'E-mail sequences with reply detection', 'Pipeline forecasting'],
    audience: ['B2B sales teams of 5 to 200 reps', 'Revenue operations leaders', 'Founders who still sell'],
  },
  ledgerly: {
    name: 'Ledgerly',
    title: 'Ledgerly | Invoicing and receivables on autopilot',
    description: 'Ledgerly sends invoices, chases late payments and reconciles bank transfers for finance teams.',
    headline: 'Get paid on time, every time',
    intro: 'Finance teams use Ledgerly to cut days sales outstanding and close the month faster.',
    features: ['Recurring invoices in 30 currencies', 'Automatic payment reminders', 'Bank reconciliation', 'ERP integrations'],
    audience: ['Finance teams in mid-sized companies', 'Accounting firms', 'Subscription businesses'],
  },
  fleetwise: {
    name: 'Fleetwise',
    title: 'Fleetwise - Route planning for delivery fleets',
    description: 'Fleetwise plans delivery routes, tracks vehicles live and gives customers accurate arrival times.',
    headline: 'Deliver more stops with fewer kilometres',
    intro: 'Dispatchers plan a full day of routes in minutes and drivers get turn-by-turn navigation in the app.',
    features: ['Multi-stop route optimisation', 'Live vehicle tracking', 'Customer arrival notifications', 'Proof of delivery'],
    audience: ['Last-mile delivery companies', 'Wholesalers with their own fleet', 'Field service teams'],
  },
};

export const PRODUCT_PAGE_SLUGS = Object.keys(PAGES);

export function productPageHtml(slug: string): string | null {
  const page = PAGES[slug];
  if (!page) return null;
  const items = (list: string[]) => list.map((item) => `      <li>${escapeHtml(item)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(page.title)}</title>
  <meta name="description" content="${escapeHtml(page.description)}">
  <meta property="og:site_name" content="${escapeHtml(page.name)}">
  <meta property="og:title" content="${escapeHtml(page.title)}">
  <meta property="og:description" content="${escapeHtml(page.description)}">
  <style>body{font-family:sans-serif}</style>
  <script>window.analytics = { page: "${slug}" };</script>
</head>
<body>
  <nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/login">Log in</a></nav>
  <main>
    <h1>${escapeHtml(page.headline)}</h1>
    <p>${escapeHtml(page.intro)}</p>
    <section id="features">
      <h2>Features</h2>
      <ul>
${items(page.features)}
      </ul>
    </section>
    <section id="audience">
      <h2>Built for</h2>
      <ul>
${items(page.audience)}
      </ul>
    </section>
  </main>
  <footer>© ${escapeHtml(page.name)}. All rights reserved.</footer>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
