import { SCOPE_DESCRIPTIONS } from '../../../../domain/agents/scopes.ts';

/** A scope in plain words, as the consent page and the AI agents page show it; an unknown one by its name. */
export const describeScope = (scope: string) => SCOPE_DESCRIPTIONS[scope] ?? scope;
