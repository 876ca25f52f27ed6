/** The most provider and model calls the research worker had in flight, and waiting for their account's turn, during a run. */
export interface CallsAtMost {
  providerInFlight: number;
  modelInFlight: number;
  providerWaiting: number;
  modelWaiting: number;
}

/**
 * Reads the research worker's call gauges (research_calls_in_flight,
 * research_calls_waiting) every half second until stopped; the most of each.
 * A scrape costs the worker a little CPU, counted in the run's CPU per job.
 */
export function sampleCalls(metricsUrl: string): { stop(): void; most: Promise<CallsAtMost> } {
  let isStopped = false;
  const most: CallsAtMost = { providerInFlight: 0, modelInFlight: 0, providerWaiting: 0, modelWaiting: 0 };
  const gauge = (text: string, name: string, kind: string) => Number(new RegExp(`^${name}\\{[^}]*kind="${kind}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const loop = (async () => {
    while (!isStopped) {
      const text = await fetch(metricsUrl).then((reply) => reply.text(), () => '');
      most.providerInFlight = Math.max(most.providerInFlight, gauge(text, 'research_calls_in_flight', 'provider'));
      most.modelInFlight = Math.max(most.modelInFlight, gauge(text, 'research_calls_in_flight', 'model'));
      most.providerWaiting = Math.max(most.providerWaiting, gauge(text, 'research_calls_waiting', 'provider'));
      most.modelWaiting = Math.max(most.modelWaiting, gauge(text, 'research_calls_waiting', 'model'));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return most;
  })();
  return { stop: () => void (isStopped = true), most: loop };
}
