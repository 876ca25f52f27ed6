import { oauthClientMetadataSchema, type ClientDiscovery, type OAuthOptions, type Scope } from '@better-auth/oauth-provider';
import { isForbiddenCimdClientMetadataField, registerClientMetadataDocument } from '@better-auth/oauth-provider/internal';
import { APIError } from 'better-auth/api';
import { ClientMetadataDocumentRefused, fetchClientMetadataDocument } from '../../integrations/web/client-metadata-document.ts';

const DISCOVERY_ID = 'cimd';
/** A known agent's document is fetched again at most this often (it names the agent and its redirect URIs). */
const REFRESH_AFTER_MS = 10 * 60 * 1000;

/**
 * Client ID metadata documents: an agent whose `client_id` is an https URL
 * (Claude Code, VS Code) is known by the JSON document at that URL, fetched
 * through the outbound guard, instead of registering first. The document must
 * name itself (`client_id` is its URL) and the agent (`client_name`), and the
 * agent is a public client (PKCE, no secret).
 */
export function clientMetadataDocumentDiscovery(options: () => OAuthOptions<Scope[]>, allowedPrivateHosts: ReadonlySet<string>): ClientDiscovery {
  return {
    id: DISCOVERY_ID,
    matches: isMetadataDocumentUrl,
    discoveryMetadata: { client_id_metadata_document_supported: true },
    resolve: async (ctx, clientId, existing) => {
      if (existing && existing.updatedAt && Date.now() - new Date(existing.updatedAt).getTime() < REFRESH_AFTER_MS) return existing;
      const metadata = parseDocument(clientId, await fetchDocument(clientId, allowedPrivateHosts));
      const { client } = await registerClientMetadataDocument(ctx, options(), {
        clientId,
        clientDiscoveryId: DISCOVERY_ID,
        metadata: { ...metadata, client_id: clientId, redirect_uris: metadata.redirect_uris ?? [], token_endpoint_auth_method: 'none' },
        existingClient: existing ?? undefined,
      });
      return client;
    },
  };
}

function isMetadataDocumentUrl(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

async function fetchDocument(clientId: string, allowedPrivateHosts: ReadonlySet<string>): Promise<unknown> {
  try {
    return await fetchClientMetadataDocument(clientId, allowedPrivateHosts);
  } catch (error) {
    if (error instanceof ClientMetadataDocumentRefused) throw invalidClient(error.message);
    throw error;
  }
}

function parseDocument(clientId: string, raw: unknown) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidClient('The client metadata document is not a JSON object.');
  const forbidden = Object.keys(raw).find(isForbiddenCimdClientMetadataField);
  if (forbidden) throw invalidClient(`The client metadata document must not contain "${forbidden}".`);
  const parsed = oauthClientMetadataSchema.strip().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidClient(`The client metadata document's ${issue?.path.join('.') || 'fields'}: ${issue?.message ?? 'invalid'}.`);
  }
  const document = parsed.data;
  if (document.client_id !== clientId) throw invalidClient('The client metadata document\'s client_id is not its own URL.');
  if (!document.client_name?.trim()) throw invalidClient('The client metadata document must name the client (client_name).');
  if (!document.redirect_uris?.length) throw invalidClient('The client metadata document must list its redirect_uris.');
  if ((document.token_endpoint_auth_method ?? 'none') !== 'none') throw invalidClient('A client known by its metadata document is a public client: token_endpoint_auth_method must be "none".');
  return document;
}

const invalidClient = (description: string) => new APIError('BAD_REQUEST', { error: 'invalid_client', error_description: description });
