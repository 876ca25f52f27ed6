import { Alert, Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatCount } from '../../../../../domain/lists/fields.ts';
import type { ListLimits } from '../../../../../domain/lists/lists.ts';
import { planLabel } from '../../../../../domain/billing/plans.ts';

const inWords = (count: number) => (count === 1 ? 'one list runs' : count === 3 ? 'three lists run' : `${count} lists run`);

/** docs/decisions.md#compatible-extensions: one running list per account on Free and Starter, three on Growth and Scale; bounded by credits on every plan. */
export function LimitsNotice({ limits }: { limits: ListLimits }) {
  const plan = planLabel(limits.plan);
  const isFull = limits.running >= limits.maxRunning;
  const rule = `On the ${plan} plan ${inWords(limits.maxRunning)} at a time`;
  const credits = `You have ${formatCount(limits.creditsLeft)} ${limits.creditsLeft === 1 ? 'credit' : 'credits'} left in this billing cycle; each researched row uses one.`;
  if (!isFull) {
    return (
      <Text size="sm">
        {rule}
        {limits.running > 0 && ` (${formatCount(limits.running)} running now)`}. {credits}
      </Text>
    );
  }
  return (
    <Alert color="yellow" title={limits.maxRunning === 1 ? 'A list is already running' : `${formatCount(limits.running)} lists are already running`}>
      {rule}. A list you start now waits its turn{limits.queued > 0 && ` behind ${formatCount(limits.queued)} waiting`} and starts by itself when a running one ends
      {limits.maxRunning === 1 && (
        <>
          , or{' '}
          <Anchor component={Link} to="/billing">
            move to the Growth or Scale plan
          </Anchor>{' '}
          to run three at once
        </>
      )}
      . {credits}
    </Alert>
  );
}
