// The admin command's commands, their flags and their usage (scripts/admin.ts runs them).
import { LANGUAGES } from '../../domain/research/languages.ts';
import { PLAN_NAMES } from '../../domain/billing/plans.ts';
import type { CommandSpec } from './admin-cli.ts';

const str = { type: 'string' } as const;
export const ADMIN_COMMANDS: CommandSpec[] = [
  {
    name: 'account create',
    summary: 'Create an account; prints its id.',
    synopsis: '--email E [--plan P] [--language L]',
    details: ['--email E      the owner\'s e-mail address', `--plan P       ${PLAN_NAMES.join(' | ')} (default free)`, `--language L   ${LANGUAGES.join(' | ')} (default en)`],
    flags: { email: str, plan: str, language: str },
  },
  {
    name: 'account list',
    summary: 'Every account: id, owner, plan, language, credits this cycle.',
    synopsis: '',
    details: [],
    flags: {},
  },
  {
    name: 'account show',
    summary: "One account: plan, billing cycle, credits and the AI's output language.",
    synopsis: '--account ID',
    details: ['--account ID   the account id'],
    flags: { account: str },
  },
  {
    name: 'account plan',
    summary: 'Change the plan: an upgrade applies at once (credits prorated), a downgrade at the next cycle.',
    synopsis: '--account ID --plan P',
    details: ['--account ID   the account id', `--plan P       ${PLAN_NAMES.join(' | ')}`],
    flags: { account: str, plan: str },
  },
  {
    name: 'account language',
    summary: 'Set the language of the AI-written texts of future jobs.',
    synopsis: '--account ID --language L',
    details: ['--account ID   the account id', `--language L   ${LANGUAGES.join(' | ')}`],
    flags: { account: str, language: str },
  },
  {
    name: 'key create',
    summary: 'Create an API key (shown once), with a product context from flags or read from a product page.',
    synopsis: '--account ID [--product-name N --product-description D [--key-features "a,b"] [--target-customers "x,y"]] [--product-url URL]',
    details: [
      '--account ID                 the account id',
      '--product-name N             product context: name (with --product-description)',
      '--product-description D      product context: description',
      '--key-features "a,b"         product context: key features, comma-separated',
      '--target-customers "x,y"     product context: target customers, comma-separated',
      '--product-url URL            draft the product context from this page (the AI); the flags above override fields',
      'Without product flags the key has no product context (POST /research then answers api_key_has_no_product).',
    ],
    flags: { account: str, 'product-name': str, 'product-description': str, 'key-features': str, 'target-customers': str, 'product-url': str },
  },
  {
    name: 'key list',
    summary: "An account's keys: prefix, product, created, last used, revoked, credits this cycle.",
    synopsis: '--account ID',
    details: ['--account ID   the account id'],
    flags: { account: str },
  },
  {
    name: 'key revoke',
    summary: 'Revoke a key at once.',
    synopsis: '--key-id ID',
    details: ['--key-id ID    the key id (from key create or key list)'],
    flags: { 'key-id': str },
  },
];
