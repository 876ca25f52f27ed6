import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Usage } from '../../../../../domain/dashboard/replies.ts';

const PALETTE = ['#1864ab', '#2b8a3e', '#c92a2a', '#e67700', '#5f3dc4', '#0b7285', '#862e9c', '#5c940d'];
const keyOf = (key: Usage['keys'][number]) => (key.id === null ? 'none' : String(key.id));

/** Credits per day of the cycle, stacked by key; the table beside it holds the same numbers for every reader. */
export function UsageChart({ usage }: { usage: Usage }) {
  const rows = usage.days.map((day) => ({ day: day.day.slice(5), ...day.byKey }));
  return (
    <ResponsiveContainer width="100%" height={260}>
      <BarChart data={rows} role="img" aria-label="Credits used per day, by key">
        <CartesianGrid strokeDasharray="3 3" />
        {/* Room between the y-axis and the first day, so that its bar is not drawn under the axis. */}
        <XAxis dataKey="day" padding={{ left: 16, right: 16 }} />
        <YAxis allowDecimals={false} />
        <Tooltip />
        <Legend />
        {usage.keys.map((key, index) => (
          <Bar key={keyOf(key)} dataKey={keyOf(key)} name={key.label} stackId="credits" fill={PALETTE[index % PALETTE.length]} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
