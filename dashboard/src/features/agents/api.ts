import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api-client.ts';

/** An agent the owner allowed, as `GET /app/api/agents` lists it. */
export interface ConnectedAgent {
  clientId: string;
  name: string;
  uri: string | null;
  scopes: string[];
  connectedAt: string;
  lastTokenAt: string | null;
}

export interface AgentList {
  /** The MCP server's address: what every client is given. */
  mcpUrl: string;
  agents: ConnectedAgent[];
}

export const agentsQueryOptions = () => queryOptions({ queryKey: ['agents'], queryFn: () => api<AgentList>('/agents') });
export const useAgents = () => useQuery(agentsQueryOptions());

export const useRevokeAgent = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (clientId: string) => api(`/agents/${encodeURIComponent(clientId)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['agents'] }),
  });
};

/** What the OAuth provider tells a signed-in owner about a client (RFC 7591 names). */
export interface OAuthClientSummary {
  client_id: string;
  client_name?: string;
  client_uri?: string;
}

export const oauthClientQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['oauth-client', clientId],
    queryFn: () => api<OAuthClientSummary>(`/auth/oauth2/public-client?client_id=${encodeURIComponent(clientId)}`),
    retry: false,
  });
export const useOAuthClient = (clientId: string) => useQuery(oauthClientQueryOptions(clientId));

/** The owner's answer; the reply says where the browser goes next: back to the agent, with a code or access_denied. */
export const useAnswerConsent = () =>
  useMutation({
    mutationFn: async ({ accept, oauthQuery }: { accept: boolean; oauthQuery: string }) => {
      const reply = await api<{ redirect_uri?: string; url?: string }>('/auth/oauth2/consent', { body: { accept, oauth_query: oauthQuery } });
      const next = reply.redirect_uri ?? reply.url;
      if (!next) throw new Error('The answer was recorded, but the server did not say where to go next. Return to your agent.');
      return next;
    },
  });
