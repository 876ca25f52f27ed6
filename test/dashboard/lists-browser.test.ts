import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibleDescription, ensureDashboardBuilt, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { creditsOf, listCustomer, type ListCustomer } from '../helpers/lists.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// A salesperson's list in Chromium, upload → map → preview → run →
// progress → download, by role and label, with an axe scan of every state.
// The stack starts without a worker so a started list stays running while the
// page is looked at; the worker is added to let it finish.
let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;
let owner: ListCustomer;
let page: Page;

beforeAll(async () => {
  await ensureDashboardBuilt();
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  owner = await listCustomer(stack, mail, 'starter');
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mail?.close();
});

async function expectAccessible() {
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
}

/** A German fair's attendee export: BOM, semicolons, a quoted comma, a duplicate, free-mail, role, invalid and a formula cell. */
function attendeesCsv() {
  const people = [0, 1, 2, 3].map((index) => samplePerson(stack, { knownTo: 'both' }, index));
  const domain = people[0].email.split('@')[1];
  const lines = [
    'Name;E-Mail-Adresse;Firma;Notiz',
    `"Weber, Anna";${people[0].email};Acme GmbH;"=cmd|' /C calc'!A0"`,
    `Jürgen Groß;${people[1].email};;Stand 4`,
    `Zoë Ångström;${people[2].email};;`,
    `Łukasz Żółw;${people[3].email};;`,
    `Anna again;${people[0].email.toUpperCase()};;`,
    'Max Muster;max.muster@gmail.com;;',
    `Empfang;info@${domain};;`,
    'Ohne Adresse;keine-adresse;;',
  ];
  return { people, csv: `\uFEFF${lines.join('\r\n')}\r\n` };
}

describe('the Lists page in Chromium', () => {
  it('uploads a CSV, maps its columns, previews it, runs it with live progress, downloads the results, and cancels another list', async () => {
    const connection = stack.orm.em.fork().getConnection();
    const [{ owner_email: email }] = await connection.execute('select owner_email from account where id = ?', [owner.accountId]);
    const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', acceptDownloads: true });
    page = await context.newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    // Empty state, with the plan's rule.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('heading', { name: 'Lists', level: 1 }).waitFor();
    await page.getByText('No lists yet.', { exact: false }).waitFor();
    await page.getByText(/On the Starter plan one list runs at a time\. You have 50 credits left/).waitFor();
    await expectAccessible();

    // A workbook picked by mistake is refused where it was chosen.
    const fileInput = page.getByLabel('CSV file');
    await fileInput.setInputFiles({ name: 'attendees.xlsx', mimeType: 'application/octet-stream', buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]) });
    await page.getByRole('alert').filter({ hasText: 'This list cannot be used' }).filter({ hasText: 'not a CSV' }).waitFor();
    await expectAccessible();

    // Over 2 MiB is refused before it is sent; an empty file by the server. Both said at the file field.
    await fileInput.setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.alloc(2 * 1024 * 1024 + 1, 'a') });
    await page.getByRole('alert').filter({ hasText: 'The file is too large' }).filter({ hasText: '"big.csv" is 2.0 MiB' }).waitFor();
    await fileInput.setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.alloc(0) });
    await page.getByRole('alert').filter({ hasText: 'This list cannot be used' }).filter({ hasText: 'The file is empty' }).waitFor();
    await expectAccessible();

    // The real export: its columns guessed from the German headers.
    const { people, csv } = attendeesCsv();
    await fileInput.setInputFiles({ name: 'Messe Besucher.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    await page.getByRole('heading', { name: 'List Messe Besucher', level: 1 }).waitFor();
    const column = (name: string) => page.getByRole('combobox', { name });
    expect(await column('Column 1: Name').inputValue()).toBe('prospect_name');
    expect(await column('Column 2: E-Mail-Adresse').inputValue()).toBe('email');
    expect(await column('Column 3: Firma').inputValue()).toBe('company_name');
    expect(await column('Column 4: Notiz').inputValue()).toBe('');
    expect(await page.getByRole('combobox', { name: 'API key' }).inputValue()).toBe(String(owner.keyId));

    const counts = page.getByRole('table', { name: 'Rows by check' });
    const count = async (label: string) => {
      const row = counts.getByRole('row', { name: new RegExp(`^${label.replace(/[()?.*+^$[\]\\{}|]/g, '\\$&')} \\d`) });
      return (await row.getByRole('cell').innerText()).trim();
    };
    expect(await count('Rows in the list')).toBe('8');
    expect(await count('Valid addresses')).toBe('6');
    expect(await count('Invalid addresses')).toBe('1');
    expect(await count('Duplicates folded into their first row')).toBe('1');
    expect(await count('Free-mail or disposable addresses')).toBe('1');
    expect(await count('Role addresses (info@, sales@…)')).toBe('1');
    await page.getByRole('status').filter({ hasText: 'Uses 6 of your 50 credits left.' }).waitFor();
    const notResearched = page.getByRole('table', { name: 'Rows that will not be researched' });
    expect(await notResearched.getByRole('row', { name: /^6 / }).innerText()).toMatch(/Duplicate: same as row 2/);
    expect(await notResearched.getByRole('row', { name: /^9 / }).innerText()).toMatch(/Invalid: no @ in "keine-adresse"/);
    await expectAccessible();
    if (process.env.SCREENSHOTS === '1') await page.getByRole('heading', { name: 'Columns' }).evaluate((heading) => window.scrollTo(0, heading.getBoundingClientRect().top + window.scrollY - 80));
    await screenshotForReadme(page, 'list-preview');

    // Without an e-mail column nothing can start, and the page says so at the columns.
    await column('Column 2: E-Mail-Adresse').selectOption({ label: 'Not used' });
    await page.getByRole('alert').filter({ hasText: 'Choose the e-mail column' }).waitFor();
    expect(await page.getByRole('button', { name: /^Start researching/ }).isDisabled()).toBe(true);
    await expectAccessible();
    await column('Column 2: E-Mail-Adresse').selectOption({ label: 'E-mail' });
    await page.getByRole('status').filter({ hasText: 'Uses 6 of your 50 credits left.' }).waitFor();

    // Skipping the flagged addresses leaves the four people.
    await page.getByRole('switch', { name: 'Skip free-mail and role addresses (2)' }).check();
    await page.getByRole('status').filter({ hasText: 'Uses 4 of your 50 credits left.' }).waitFor();
    expect(await notResearched.getByRole('row', { name: /^7 / }).innerText()).toMatch(/Free-mail address, skipped/);
    await page.getByRole('button', { name: 'Start researching 4 rows' }).click();

    // Running (no worker yet): progress, the rows waiting, Cancel asks first.
    const progress = page.getByRole('progressbar', { name: 'List progress' });
    // At 0 % the bar's filled part has no width: present to screen readers, not visible.
    await progress.waitFor({ state: 'attached' });
    expect(await progress.getAttribute('aria-valuenow')).toBe('0');
    // No row has finished yet: the page makes no guess from other jobs.
    await page.getByRole('status').filter({ hasText: '0 done, 0 failed, 4 remaining · estimating the time left' }).waitFor();
    await page.getByRole('button', { name: 'Cancel list' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this list?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('Rows not yet started are not run and not charged.');
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Keep running' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expectAccessible();

    // Another list started while this one runs on Starter waits its turn, and the page says so.
    await page.getByRole('link', { name: 'Back to lists' }).click();
    await page.getByRole('table', { name: 'Your lists' }).getByRole('link', { name: 'Messe Besucher' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'A list is already running' }).filter({ hasText: 'On the Starter plan one list runs at a time. A list you start now waits its turn' }).waitFor();
    await expectAccessible();

    // The worker comes: the list finishes, row by row.
    await page.getByRole('table', { name: 'Your lists' }).getByRole('link', { name: 'Messe Besucher' }).click();
    await stack.startWorker();
    await page.getByRole('status').filter({ hasText: '4 done, 0 failed, 0 remaining' }).waitFor({ timeout: 120_000 });
    expect(await progress.getAttribute('aria-valuenow')).toBe('100');
    await page.getByText('Finished', { exact: true }).waitFor();
    const rows = page.getByRole('table', { name: 'Rows of the list' });
    expect(await rows.getByRole('link', { name: /^View job for row \d/ }).count()).toBe(4);
    expect(await rows.getByRole('row', { name: /^2 / }).innerText()).toMatch(/Completed/);
    await page.getByText('The 4 rows not researched (invalid, duplicate or skipped) are in the CSV download, each with the reason.').waitFor();
    await expectAccessible();
    await screenshotForReadme(page, 'list-progress');
    expect((await creditsOf(stack, owner.accountId)).consumed).toHaveLength(4);

    // The CSV: one row per input row, input columns first, the formula cell escaped.
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    expect(csvDownload.suggestedFilename()).toBe('Messe Besucher-results.csv');
    const bytes = readFileSync(await csvDownload.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const table = parse(bytes, { bom: true }) as string[][];
    expect(table[0].slice(0, 6)).toEqual(['Name', 'E-Mail-Adresse', 'Firma', 'Notiz', 'Status', 'Note']);
    expect(table).toHaveLength(9);
    expect(table[1].slice(0, 5)).toEqual(['Weber, Anna', people[0].email, 'Acme GmbH', "'=cmd|' /C calc'!A0", 'Completed']);
    expect(table[3][0]).toBe('Zoë Ångström');
    expect(table[4][0]).toBe('Łukasz Żółw');
    expect(table.slice(1).map((row) => row[4])).toEqual(['Completed', 'Completed', 'Completed', 'Completed', 'Skipped', 'Skipped', 'Skipped', 'Skipped']);

    // JSON Lines: each researched row's status reply.
    const [jsonlDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download JSON Lines' }).click()]);
    const lines = readFileSync(await jsonlDownload.path(), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.status)).toEqual(['completed', 'completed', 'completed', 'completed']);

    // A pasted list, cancelled for real while no worker runs: nothing of it is charged.
    await stack.stopWorker();
    await page.getByRole('link', { name: 'Back to lists' }).click();
    // Mantine's segmented control hides the radio under its label: a person clicks the label.
    await page.getByText('Paste addresses', { exact: true }).click();
    expect(await page.getByRole('radio', { name: 'Paste addresses' }).isChecked()).toBe(true);
    const pasted = page.getByRole('textbox', { name: 'E-mail addresses, one per line' });
    await page.getByRole('button', { name: 'Check addresses' }).click();
    await page.getByText('Paste at least one address.').waitFor();
    await expectAccessible();
    // 1,000 lines and not one address: every row said invalid, nothing can start, the draft goes.
    await pasted.fill(Array.from({ length: 1000 }, (_, index) => `person${index}.example.com`).join('\n'));
    await page.getByRole('button', { name: 'Check addresses' }).click();
    await page.getByRole('status').filter({ hasText: 'No row would be researched, so nothing is charged.' }).waitFor();
    expect(await count('Invalid addresses')).toBe('1,000');
    expect(await page.getByRole('button', { name: 'Start researching 0 rows' }).isDisabled()).toBe(true);
    await page.getByText('No row can run: see the check above.').waitFor();
    await page.getByText('The first 100 of 1,000 rows are shown.').waitFor();
    await expectAccessible();
    await page.getByRole('button', { name: 'Delete this draft' }).click();
    await page.getByRole('heading', { name: 'Lists', level: 1 }).waitFor();
    await page.getByText('Paste addresses', { exact: true }).click();
    await pasted.fill([4, 5, 6].map((index) => samplePerson(stack, { knownTo: 'both' }, index).email).join('\n'));
    await page.getByRole('button', { name: 'Check addresses' }).click();
    await page.getByRole('status').filter({ hasText: 'Uses 3 of your 46 credits left.' }).waitFor();
    await page.getByRole('button', { name: 'Start researching 3 rows' }).click();
    await page.getByRole('button', { name: 'Cancel list' }).click();
    await dialog.getByRole('button', { name: /^Cancel list / }).click();
    await dialog.waitFor({ state: 'hidden' });
    await stack.startWorker();
    await page.getByText('Cancelled', { exact: true }).first().waitFor({ timeout: 60_000 });
    await page.getByRole('status').filter({ hasText: '3 not run (not charged)' }).waitFor();
    await expectAccessible();
    expect((await creditsOf(stack, owner.accountId)).consumed).toHaveLength(4);
    await context.close();
  }, 300_000);

  // What the page shows of the cells, and a cancelled list.
  it('cuts a 1 MB cell, skips a blank line, shows invalid rows\' cells, IDN domains in their own letters and a cue on a box that scrolls', async () => {
    const customer = await listCustomer(stack, mail, 'starter');
    page = await signIn(customer);
    const kim = samplePerson(stack, { knownTo: 'both' }, 7).email;
    const megabyte = 'x'.repeat(1_000_000);
    const invalid = ['keine-adresse', 'kim@localhost', 'y'.repeat(5_000), '@acme.com', 'kim@', 'kim lee@acme.com', '"a@acme.com, b@acme.com"', 'kim@[127.0.0.1]', 'nobody'];
    const csv = (note: string, header: string) =>
      [
        `Name,E-Mail,Company,${header}`,
        'Maria Müller,maria@müller-gmbh.de,Müller GmbH,',
        '',
        `Kim,${kim},,${note}`,
        ...invalid.map((cell, index) => `Bad ${index + 1},${cell},,`),
        '',
      ].join('\r\n');
    const upload = async (name: string, text: string) => {
      await page.getByLabel('CSV file').setInputFiles({ name: `${name}.csv`, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
      await page.getByRole('heading', { name: `List ${name}`, level: 1 }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Uses 2 of your 50 credits left.' }).waitFor();
      const start = page.getByRole('button', { name: 'Start researching 2 rows' });
      return {
        height: await page.evaluate(() => document.documentElement.scrollHeight),
        startTop: await start.evaluate((button) => button.getBoundingClientRect().top + window.scrollY),
      };
    };
    // The same list with a short note and header first: the page a megabyte must not change.
    const short = await upload('Short cell', csv('Met at the fair', 'Note'));
    await page.getByRole('link', { name: 'Back to lists' }).click();
    const huge = await upload('Huge cell', csv(megabyte, 'Long header '.repeat(200)));

    // The megabyte is cut wherever it would show: page and Start at most a few lines lower than with a
    // short note (the page was 336,071 px tall), Start about two screens down, under the check.
    expect(huge.height).toBeLessThan(short.height + 100);
    expect(huge.startTop).toBeLessThan(short.startTop + 100);
    expect(huge.height).toBeLessThan(3_000);
    expect(huge.startTop).toBeLessThan(2.5 * 900);
    expect((await page.locator('body').innerText()).length).toBeLessThan(10_000);
    const note = page.getByRole('combobox', { name: /^Column 4: Long header Long header/ });
    expect(await note.evaluate((select) => ((select as HTMLSelectElement).labels?.[0]?.textContent ?? '').length)).toBeLessThan(80);

    // The blank line is no row, and the rows after it keep their spreadsheet numbers.
    const counts = page.getByRole('table', { name: 'Rows by check' });
    expect(await counts.getByRole('row', { name: /^Rows in the list \d/ }).getByRole('cell').innerText()).toBe('11');
    expect(await counts.getByRole('row', { name: /^Invalid addresses \d/ }).getByRole('cell').innerText()).toBe('9');
    const toResearch = page.getByRole('table', { name: 'Rows to research' });
    expect(await toResearch.getByRole('row', { name: /^2 / }).innerText()).toMatch(/^2\s+maria@müller-gmbh\.de/);
    expect(await toResearch.getByRole('row', { name: /^4 / }).innerText()).toContain(kim);

    // Each invalid row shows what its cell held, cut to a readable length.
    const notResearched = page.getByRole('table', { name: 'Rows that will not be researched' });
    expect(await notResearched.getByRole('row').count()).toBe(1 + invalid.length);
    expect((await notResearched.getByRole('row', { name: /^5 / }).getByRole('cell').nth(1).innerText()).trim()).toBe('keine-adresse');
    expect((await notResearched.getByRole('row', { name: /^11 / }).getByRole('cell').nth(1).innerText()).trim()).toBe('a@acme.com, b@acme.com');
    const longCell = (await notResearched.getByRole('row', { name: /^7 / }).getByRole('cell').nth(1).innerText()).trim();
    expect(longCell).toMatch(/^y{59}…$/);
    expect(await page.getByRole('table', { name: 'Rows that will not be researched' }).getByText('—', { exact: true }).count()).toBe(0);

    // Nine rows in a box that shows about eight: the box says it scrolls; the one with two rows does not.
    const box = page.getByRole('region', { name: 'Rows that will not be researched (scrollable)' });
    expect(await box.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
    const cue = page.getByText('Scroll the box to see all 9 rows.');
    await cue.waitFor();
    expect(await accessibleDescription(box)).toBe('Scroll the box to see all 9 rows.');
    expect(await page.getByText(/^Scroll the box to see all 2 rows/).count()).toBe(0);
    await expectAccessible();
    // Scrolled to its end, the last row shows.
    await box.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await expect.poll(() => notResearched.getByRole('row', { name: /^13 / }).evaluate((row) => {
      const region = row.closest('[role="region"]')!.getBoundingClientRect();
      return row.getBoundingClientRect().bottom <= region.bottom + 1;
    })).toBe(true);
    await expectAccessible();
    await page.context().close();
  }, 120_000);

  it('a cancelled list: one row not researched said in the singular, IDN rows, a bar that is not full, every cell of the download quoted', async () => {
    // No worker while the list is looked at and cancelled: nothing of it starts.
    await stack.stopWorker();
    const customer = await listCustomer(stack, mail, 'starter');
    page = await signIn(customer);
    const kim = samplePerson(stack, { knownTo: 'both' }, 8).email;
    const csv = `Name,E-Mail,Company\r\nMaria Müller,maria@müller-gmbh.de,\r\nKim,${kim},Acme\r\nKein,keine-adresse,\r\n`;
    await page.getByLabel('CSV file').setInputFiles({ name: 'Short.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    await page.getByRole('heading', { name: 'List Short', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Start researching 2 rows' }).click();

    await page.getByText('The 1 row not researched (invalid, duplicate or skipped) is in the CSV download, with the reason.').waitFor();
    const rows = page.getByRole('table', { name: 'Rows of the list' });
    expect(await rows.getByRole('row', { name: /^2 / }).innerText()).toMatch(/^2\s+maria@müller-gmbh\.de\s+Waiting/);
    await expectAccessible();

    await page.getByRole('button', { name: 'Cancel list' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this list?' });
    await dialog.getByRole('button', { name: /^Cancel list / }).click();
    await dialog.waitFor({ state: 'hidden' });
    await stack.startWorker();
    await page.getByRole('status').filter({ hasText: 'Cancelled: 0 done, 0 failed, 0 remaining, 2 not run (not charged)' }).waitFor({ timeout: 60_000 });
    // Rows never run do not fill the bar: it shows the rows researched, and says the list was cancelled.
    const progress = page.getByRole('progressbar', { name: 'List progress (cancelled)', exact: true });
    await progress.waitFor({ state: 'attached' });
    expect(await progress.getAttribute('aria-valuenow')).toBe('0');
    await expectAccessible();
    expect((await creditsOf(stack, customer.accountId)).consumed).toHaveLength(0);

    // The download: every cell quoted, the empty ones as "".
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const bytes = readFileSync(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records = bytes.subarray(3).toString('utf8').split('\r\n').slice(0, -1);
    expect(records).toHaveLength(4);
    for (const record of records) expect(record).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/);
    expect(records[1]).toMatch(/^"Maria Müller","maria@müller-gmbh\.de","","Not run \(not charged\)"/);

    // In the table of lists too, the cancelled list's bar is not full.
    await page.getByRole('link', { name: 'Back to lists' }).click();
    const bar = page.getByRole('progressbar', { name: 'Progress of Short (cancelled)', exact: true });
    await bar.waitFor({ state: 'attached' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('0');
    await expectAccessible();
    await page.context().close();
  }, 180_000);
});

/** A page signed in as `customer`, on the Lists page. */
async function signIn(customer: ListCustomer): Promise<Page> {
  const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', acceptDownloads: true });
  const signedIn = await context.newPage();
  await signedIn.goto('/app/sign-in');
  await signedIn.getByLabel('E-mail').fill(customer.email);
  await signedIn.getByRole('textbox', { name: 'Password', exact: true }).fill(customer.password);
  await signedIn.getByRole('button', { name: 'Sign in' }).click();
  await signedIn.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await signedIn.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lists' }).click();
  await signedIn.getByRole('heading', { name: 'Lists', level: 1 }).waitFor();
  return signedIn;
}
