// The fields the configuration schema allows at a place in the file, so an unknown one can be answered with the
// closest known name ("did you mean"). Pure: walks schemas/config.schema.json along a JSON pointer.
import configSchema from '../../schemas/config.schema.json' with { type: 'json' };

interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: boolean | SchemaNode;
}

const root = configSchema as SchemaNode & { definitions?: Record<string, SchemaNode> };

function resolved(node: SchemaNode | undefined): SchemaNode | undefined {
  const ref = node?.$ref;
  if (ref === undefined) return node;
  const name = /^#\/definitions\/([^/]+)$/.exec(ref)?.[1];
  return resolved(name === undefined ? undefined : root.definitions?.[name]);
}

/** The field names the schema allows at `pointer` (`/targets/0/cluster`), or none when it does not say. */
export function knownFields(pointer: string): string[] {
  let node = resolved(root);
  for (const part of pointer.split('/').slice(1)) {
    if (!node) return [];
    const next: SchemaNode | undefined = node.properties?.[part] ?? (/^\d+$/.test(part) ? node.items : undefined)
      ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    node = resolved(next);
  }
  return Object.keys(node?.properties ?? {});
}
