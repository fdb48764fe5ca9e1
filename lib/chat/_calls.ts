/**
 * Small helpers of the loop about tool calls.
 *
 * @module
 */
import { canonicalJson } from "../_compare.ts";

/**
 * A key that is equal for two calls of the same tool with the same arguments,
 * whatever their key order or white space.
 */
export function canonicalCall(name: string, argumentsText: string): string {
  try {
    return `${name}\u0000${canonicalJson(JSON.parse(argumentsText || "{}"))}`;
  } catch {
    return `${name}\u0000${argumentsText.trim()}`;
  }
}

/**
 * The names a model might use to call a provider-native tool as a function: its `name`,
 * its `type`, and the part of a namespaced type after the colon
 * (`openrouter:web_search` → `web_search`).
 */
export function nativeToolNames(nativeTools: unknown[]): Set<string> {
  const names = new Set<string>();
  for (const t of nativeTools) {
    const tool = t as { type?: unknown; name?: unknown };
    if (typeof tool.name === "string") names.add(tool.name);
    if (typeof tool.type === "string" && tool.type !== "function") {
      names.add(tool.type);
      const i = tool.type.indexOf(":");
      if (i >= 0) names.add(tool.type.slice(i + 1));
    }
  }
  return names;
}
