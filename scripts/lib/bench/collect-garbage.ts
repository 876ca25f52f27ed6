/**
 * A full garbage collection in another Node process, through its inspector
 * (`--inspect`), in the main thread and in every worker thread (the worker
 * runs workflows and technology matching on threads of their own): resident
 * size read right after one is the memory the process holds, not wherever its
 * heaps happened to be between two collections.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function collectGarbage(inspectorPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const session = await InspectorSession.open(targets[0].webSocketDebuggerUrl);
  try {
    const threads: string[] = [];
    session.on('NodeWorker.attachedToWorker', (params) => threads.push(params.sessionId as string));
    await session.call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await sleep(200); // the threads announce themselves as events
    await session.call('HeapProfiler.collectGarbage');
    // A thread parked in Atomics.wait (an idle pool thread) answers only once woken: not waited for.
    await Promise.all(threads.map((sessionId) => Promise.race([session.callInWorker(sessionId, 'HeapProfiler.collectGarbage'), sleep(2_000)])));
  } finally {
    session.close();
  }
}

type Params = Record<string, unknown>;

/** The few Chrome DevTools Protocol calls the bench needs, over the inspector's WebSocket. */
class InspectorSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(result: Params): void; reject(error: Error): void }>();
  private readonly listeners = new Map<string, (params: Params) => void>();
  private readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; method?: string; params?: Params; result?: Params; error?: { message: string } };
      if (message.id !== undefined) {
        const call = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) call?.reject(new Error(message.error.message));
        else call?.resolve(message.result ?? {});
      } else if (message.method) {
        this.listeners.get(message.method)?.(message.params ?? {});
      }
    });
  }

  static open(url: string): Promise<InspectorSession> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.addEventListener('open', () => resolve(new InspectorSession(socket)));
      socket.addEventListener('error', () => reject(new Error(`no inspector at ${url}`)));
    });
  }

  on(method: string, listener: (params: Params) => void): void {
    this.listeners.set(method, listener);
  }

  call(method: string, params: Params = {}): Promise<Params> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  /** A call inside a worker thread's session; its reply comes back wrapped in an event. */
  callInWorker(sessionId: string, method: string): Promise<void> {
    const id = this.nextId++;
    const reply = new Promise<Params>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.on('NodeWorker.receivedMessageFromWorker', (params) => {
      const message = JSON.parse(params.message as string) as { id?: number; result?: Params; error?: { message: string } };
      const call = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id!);
      if (message.error) call.reject(new Error(message.error.message));
      else call.resolve(message.result ?? {});
    });
    void this.call('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method }) });
    return reply.then(() => undefined);
  }

  close(): void {
    this.socket.close();
  }
}
