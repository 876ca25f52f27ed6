import { createBrowserRouter, type RouteObject } from 'react-router';
import { RouteError } from '../components/route-error.tsx';

/** Each page is its own chunk: the sign-in page loads none of the signed-in pages' code (charts, tables). */
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const router = createBrowserRouter(
  [
    {
      errorElement: <RouteError />,
      children: [
        { path: 'sign-in', ...page(() => import('./routes/auth/sign-in.tsx')) },
        { path: 'sign-up', ...page(() => import('./routes/auth/sign-up.tsx')) },
        { path: 'verified', ...page(() => import('./routes/auth/verified.tsx')) },
        { path: 'forgot-password', ...page(() => import('./routes/auth/forgot-password.tsx')) },
        { path: 'reset-password', ...page(() => import('./routes/auth/reset-password.tsx')) },
        // Outside the app's frame: the owner is in the middle of an agent's sign-in.
        { path: 'agents/consent', ...page(() => import('./routes/auth/agent-consent.tsx')) },
        {
          ...page(() => import('../components/app-layout.tsx')),
          children: [
            { index: true, ...page(() => import('./routes/app/keys.tsx')) },
            { path: 'keys', ...page(() => import('./routes/app/keys.tsx')) },
            { path: 'jobs', ...page(() => import('./routes/app/jobs.tsx')) },
            { path: 'jobs/:researchId', ...page(() => import('./routes/app/job.tsx')) },
            { path: 'lists', ...page(() => import('./routes/app/lists.tsx')) },
            { path: 'lists/:listId', ...page(() => import('./routes/app/list.tsx')) },
            { path: 'usage', ...page(() => import('./routes/app/usage.tsx')) },
            { path: 'billing', ...page(() => import('./routes/app/billing.tsx')) },
            { path: 'crm', ...page(() => import('./routes/app/crm.tsx')) },
            { path: 'crm/:productId', ...page(() => import('./routes/app/crm.tsx')) },
            { path: 'webhooks', ...page(() => import('./routes/app/webhooks.tsx')) },
            { path: 'agents', ...page(() => import('./routes/app/agents.tsx')) },
            { path: 'preferences', ...page(() => import('./routes/app/preferences.tsx')) },
            { path: 'account', ...page(() => import('./routes/app/account.tsx')) },
          ],
        },
      ],
    },
  ],
  { basename: '/app' },
);
