import { type DomainError, type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { checkValue, type FieldDefinition, type FieldValue } from './field-types.ts';

/** One value of a call, by the id of its field (`fieldId` of a metadata field, `customFieldId` of a custom field). */
export interface ValueEntry {
  id: number;
  value: unknown;
}

/** A value to write: its definition, and the checked value (null clears). */
export interface WantedValue {
  definition: FieldDefinition;
  value: FieldValue | null;
}

function invalidValues(issues: FieldIssue[]): DomainError {
  return invalidFields(issues);
}

/** 422 naming `values[i].<idField>` for each entry that repeats an earlier one's field. */
export function refuseRepeatedFields(entries: readonly ValueEntry[], idField: string): void {
  const issues: FieldIssue[] = [];
  entries.forEach((entry, i) => {
    if (entries.findIndex((other) => other.id === entry.id) !== i) issues.push({ field: `values[${i}].${idField}`, message: 'repeats an earlier field' });
  });
  if (issues.length > 0) throw invalidValues(issues);
}

/**
 * Each entry checked against its definition: 422 (before anything changes) naming
 * `values[i].<idField>` for a field that is not among `definitions`, and `values[i].value` for a
 * value of the wrong type; all issues at once.
 */
export function checkValues(entries: readonly ValueEntry[], definitions: readonly FieldDefinition[], idField: string, unknownMessage: string): WantedValue[] {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const issues: FieldIssue[] = [];
  const wanted: WantedValue[] = [];
  entries.forEach((entry, i) => {
    const definition = byId.get(entry.id);
    if (!definition) {
      issues.push({ field: `values[${i}].${idField}`, message: unknownMessage });
    } else if (entry.value === null) {
      wanted.push({ definition, value: null });
    } else {
      const value = checkValue(definition, entry.value, `values[${i}].value`, issues);
      if (value !== undefined) wanted.push({ definition, value });
    }
  });
  if (issues.length > 0) throw invalidValues(issues);
  return wanted;
}
