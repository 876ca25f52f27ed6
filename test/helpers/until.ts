/** Reads `read` every 100 ms until it gives a value (anything but false, null or undefined), and returns it; throws after `timeoutMs`. */
export async function until<T>(read: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
