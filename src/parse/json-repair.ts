/**
 * Close a JSON document that was cut off (a killed job leaves its -J file open-ended): keep
 * everything up to the last point where the open containers were consistent, then close them.
 * Returns the text unchanged when nothing was open.
 */
export function closeTruncatedJson(text: string): { text: string; truncated: boolean } {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  let safeEnd = 0;
  let safeStack = '';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
    } else if (ch === '{' || ch === '[') {
      stack.push(ch === '{' ? '}' : ']');
      safeEnd = i + 1;
      safeStack = stack.join('');
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      safeEnd = i + 1;
      safeStack = stack.join('');
    } else if (ch === ',') {
      // Everything before a comma is a complete member or element.
      safeEnd = i;
      safeStack = stack.join('');
    }
  }
  if (stack.length === 0 && !inString) return { text, truncated: false };
  const closers = safeStack.split('').reverse().join('');
  return { text: text.slice(0, safeEnd) + closers, truncated: true };
}
