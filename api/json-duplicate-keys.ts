interface Frame {
  /** Keys seen so far; null for an array. */
  keys: Set<string> | null;
  /** Dotted path of this container from the root, `''` at the root. */
  path: string;
  lastKey: string;
  isExpectingKey: boolean;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The dotted path of the first key that appears twice in one object of
 * `json`, or null. `JSON.parse` silently keeps the last of duplicate keys, so
 * `{"email": a, "email": b}` could mean one address to one reader and another
 * to the next (a proxy, a log, a WAF): the API refuses such bodies instead.
 * Expects text that `JSON.parse` accepted; iterative, so deep nesting is safe.
 */
export function findDuplicateKey(json: string): string | null {
  const stack: Frame[] = [];
  for (let i = 0; i < json.length; i += 1) {
    const char = json[i];
    const top = stack.at(-1);
    if (char === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      if (top?.keys && top.isExpectingKey) {
        // Decoded, so that "email" and "\u0065mail" are the same key.
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return join(top.path, key);
        top.keys.add(key);
        top.lastKey = key;
        top.isExpectingKey = false;
      }
      i = end;
    } else if (char === '{' || char === '[') {
      const path = top ? (top.keys ? join(top.path, top.lastKey) : top.path) : '';
      stack.push({ keys: char === '{' ? new Set() : null, path, lastKey: '', isExpectingKey: char === '{' });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',' && top?.keys) {
      top.isExpectingKey = true;
    }
  }
  return null;
}
