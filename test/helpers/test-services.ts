export interface TestServices {
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startTestServices(): Promise<TestServices> {
  throw new Error('not yet wired');
}
