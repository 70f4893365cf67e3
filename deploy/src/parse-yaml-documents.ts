import { parseAllDocuments } from 'yaml';

/** Parses a multi-document YAML text into plain values, skipping empty documents; throws on a YAML error. */
export function parseYamlDocuments(text: string, where: string): unknown[] {
  const values: unknown[] = [];
  for (const document of parseAllDocuments(text)) {
    const error = document.errors[0];
    if (error !== undefined) throw new Error(`${where}: ${error.message}`);
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}
