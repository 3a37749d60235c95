// Types of the generated config-validator.js (see schema-validators-source.ts).
import type { ValidateFunction } from 'ajv';

export declare const validate: ValidateFunction;
export default validate;
