// Customers, Checkout sessions and Billing Portal sessions on the wire.
// Reply shapes follow Stripe's OpenAPI description and its fixtures
// (stripe/openapi, openapi/fixtures3.json `resources.<object>`); the fields our
// records do not model are given their documented empty values.

import type { SandboxPrice } from './catalog.ts';
import type { CheckoutSessionRecord, CustomerRecord, PortalSessionRecord } from './records.ts';

/** fixtures3.json `resources.customer`. */
export function customerJson(c: CustomerRecord) {
  return {
    id: c.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: c.created,
    currency: 'usd',
    default_source: null,
    delinquent: false,
    description: null,
    discount: null,
    email: c.email,
    invoice_prefix: c.id.slice(4, 12).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: c.hasCard ? `pm_card_${c.id.slice(4)}` : null, footer: null, rendering_options: null },
    livemode: false,
    metadata: c.metadata,
    name: c.name,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/** fixtures3.json `resources["checkout.session"]`; `url` is the stand-in's hosted page. */
export function checkoutSessionJson(s: CheckoutSessionRecord, baseUrl: string, prices: Map<string, SandboxPrice>) {
  const amount = s.lineItems.reduce((sum, item) => sum + (prices.get(item.price)?.unit_amount ?? 0) * item.quantity, 0);
  return {
    id: s.id,
    object: 'checkout.session',
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_address_collection: null,
    cancel_url: s.cancelUrl,
    client_reference_id: s.clientReferenceId,
    client_secret: null,
    consent: null,
    consent_collection: null,
    created: s.created,
    currency: 'usd',
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: s.customer,
    customer_creation: s.customer ? null : 'always',
    customer_details: s.status === 'complete' ? { address: null, email: s.customerEmail, name: null, phone: null, tax_exempt: 'none', tax_ids: [] } : null,
    customer_email: s.customerEmail,
    expires_at: s.expiresAt,
    invoice: s.invoice,
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: s.metadata,
    mode: s.mode,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_types: ['card'],
    payment_status: s.paymentStatus,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: s.status,
    submit_type: null,
    subscription: s.subscription,
    success_url: s.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: s.status === 'open' ? `${baseUrl}/pay/${s.id}` : null,
  };
}

/** fixtures3.json `resources["billing_portal.session"]`. */
export function portalSessionJson(p: PortalSessionRecord, baseUrl: string) {
  return {
    id: p.id,
    object: 'billing_portal.session',
    configuration: 'bpc_sandbox_default',
    created: p.created,
    customer: p.customer,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: p.returnUrl,
    url: `${baseUrl}/portal/${p.id}`,
  };
}
