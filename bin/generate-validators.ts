// Writes the generated schema validators (functions/domain/*-validator.js): run after changing a schema in schemas/.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatedValidators, validatorSource } from '../functions/domain/schema-validators-source.ts';

for (const { file, schema, schemaFile } of generatedValidators) {
  await writeFile(file, validatorSource(schema, schemaFile));
  process.stdout.write(`wrote ${fileURLToPath(file)}\n`);
}
