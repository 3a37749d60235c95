// A JSON object as the sandbox reads and answers it (its own module: errors, state and rate limits all use it).
export type Json = Record<string, unknown>;
