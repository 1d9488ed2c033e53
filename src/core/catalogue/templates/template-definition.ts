import { DomainError, type FieldIssue } from '../../platform/errors.ts';
import { randomCode } from '../../platform/ids.ts';
import {
  SYSTEM_KEYS,
  type SystemKey,
  TEMPLATE_LIMITS,
  type TemplateFieldInput,
  type TemplateFieldView,
  type TemplateGroupInput,
  type TemplateGroupView,
} from './template.schemas.ts';
import { migrateConfig, sameConfig, typeChangeLosesConfig, validateFieldConfig, validateSystemConfig } from './template-field-config.ts';

/** An opaque id for a template, group, field or version (spec 2.1: 1-128 characters). */
export function newOpaqueId(prefix: 'tpl' | 'grp' | 'fld' | 'tv'): string {
  return `${prefix}_${randomCode(20)}`;
}

/** The three protected system fields every template starts with, in this order (spec 2.4). */
const SEEDED_SYSTEM_FIELDS: ReadonlyArray<Pick<TemplateFieldView, 'key' | 'name' | 'type' | 'required'> & { systemKey: SystemKey }> = [
  { systemKey: 'name', key: 'name', name: 'Name', type: 'text', required: true },
  { systemKey: 'sku', key: 'sku', name: 'SKU', type: 'text', required: false },
  { systemKey: 'mainImage', key: 'mainImage', name: 'Main image', type: 'image', required: false },
];
const SYSTEM_FIELD_COUNT = SEEDED_SYSTEM_FIELDS.length;
const RESERVED_KEYS = new Set(SYSTEM_KEYS.map((k) => k.toLowerCase()));

function seedSystemFields(): TemplateFieldView[] {
  return SEEDED_SYSTEM_FIELDS.map((f, i) => ({
    id: newOpaqueId('fld'),
    key: f.key,
    name: f.name,
    type: f.type,
    required: f.required,
    placeholder: null,
    sortOrder: i,
    config: {},
    isSystemField: true,
    systemKey: f.systemKey,
  }));
}

function byOrderThenId<T extends { sortOrder: number; id: string }>(a: T, b: T): number {
  return a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Builds a template's groups from a TemplateCreate or TemplatePatch `groups` array (spec 4.4):
 * a create seeds the system fields into the first (default) group; a PATCH replaces the
 * definition in full, keeping stable ids, the default group and the protected system fields.
 * Reports every problem at once as `validation_failed` details.
 */
export function buildDefinition(current: TemplateGroupView[] | null, input: TemplateGroupInput[]): TemplateGroupView[] {
  return new DefinitionBuilder(current).build(input);
}

class DefinitionBuilder {
  private readonly issues: FieldIssue[] = [];
  private readonly groupsById: Map<string, TemplateGroupView>;
  private readonly fieldHomes = new Map<string, { field: TemplateFieldView; groupId: string }>();
  private readonly seenGroupIds = new Set<string>();
  private readonly seenFieldIds = new Set<string>();
  private readonly keysSeen = new Set<string>();
  private readonly current: TemplateGroupView[] | null;

  constructor(current: TemplateGroupView[] | null) {
    this.current = current;
    this.groupsById = new Map((current ?? []).map((g) => [g.id, g]));
    for (const group of current ?? []) for (const field of group.fields) this.fieldHomes.set(field.id, { field, groupId: group.id });
  }

  build(input: TemplateGroupInput[]): TemplateGroupView[] {
    const total = input.reduce((n, g) => n + g.fields.length, 0) + (this.current ? 0 : SYSTEM_FIELD_COUNT);
    if (total > TEMPLATE_LIMITS.fieldsTotal) {
      this.issue(
        'groups',
        `at most ${TEMPLATE_LIMITS.fieldsTotal} fields in total including the ${SYSTEM_FIELD_COUNT} system fields (so ${TEMPLATE_LIMITS.fieldsTotal - SYSTEM_FIELD_COUNT} custom fields); got ${total}`,
      );
    }
    let nextSortOrder = Math.max(-1, ...(this.current ?? []).map((g) => g.sortOrder)) + 1;
    const groups: TemplateGroupView[] = [];
    input.forEach((groupInput, index) => {
      const group = this.group(groupInput, index, () => nextSortOrder++);
      if (group) groups.push(group);
    });
    for (const group of this.current ?? []) {
      if (group.isDefault && !this.seenGroupIds.has(group.id)) this.issue('groups', `the default group ${group.id} cannot be deleted; include it with its id`);
    }
    if (this.issues.length > 0) throw new DomainError('validation_failed', 'The template definition is invalid', this.issues);
    for (const group of groups) group.fields.sort(byOrderThenId);
    return groups.sort(byOrderThenId);
  }

  private issue(field: string, message: string): void {
    this.issues.push({ field, message });
  }

  /** Records a problem with an entry that cannot be built at all. */
  private reject(field: string, message: string): null {
    this.issue(field, message);
    return null;
  }

  private group(input: TemplateGroupInput, index: number, appendPosition: () => number): TemplateGroupView | null {
    const path = `groups[${index}]`;
    let existing: TemplateGroupView | undefined;
    if (input.id !== undefined) {
      existing = this.groupsById.get(input.id);
      if (!existing) return this.reject(`${path}.id`, 'is not a group of this template; omit id for a new group');
      if (this.seenGroupIds.has(existing.id)) return this.reject(`${path}.id`, 'appears more than once');
      this.seenGroupIds.add(existing.id);
    }
    const name = input.name.trim();
    if (name.length < 1 || name.length > TEMPLATE_LIMITS.groupName) this.issue(`${path}.name`, 'must be 1-128 characters after trimming');
    // a create makes the first group the default one; afterwards the default group keeps its place
    const isDefault = existing ? existing.isDefault : this.current === null && index === 0;
    const sortOrder = existing ? existing.sortOrder : this.current === null ? index : appendPosition();
    const id = existing?.id ?? newOpaqueId('grp');
    return { id, name, isDefault, sortOrder, fields: this.fields(input.fields, path, existing, isDefault) };
  }

  private fields(inputs: TemplateFieldInput[], path: string, group: TemplateGroupView | undefined, isDefault: boolean): TemplateFieldView[] {
    const fields: TemplateFieldView[] = isDefault && !group ? seedSystemFields() : [];
    for (const seeded of fields) this.keysSeen.add(seeded.key.toLowerCase());
    // spec 4.4: in the first group custom fields follow the three system fields
    const offset = isDefault ? SYSTEM_FIELD_COUNT : 0;
    // the array position of a custom field counts custom fields only
    let position = 0;
    inputs.forEach((input, index) => {
      const fieldPath = `${path}.fields[${index}]`;
      const stored = input.id === undefined ? undefined : this.storedField(input.id, group, `${fieldPath}.id`);
      if (stored === null) return;
      if (stored?.isSystemField) {
        fields.push(this.systemField(stored, input, fieldPath));
        return;
      }
      const sortOrder = (input.sortOrder ?? position) + offset;
      position++;
      const field = stored ? this.changedField(stored, input, fieldPath, sortOrder) : this.newField(input, fieldPath, sortOrder);
      if (field) fields.push(field);
    });
    if (isDefault && group) {
      for (const field of group.fields) {
        if (field.isSystemField && !this.seenFieldIds.has(field.id))
          this.issue(`${path}.fields`, `the system field ${field.systemKey} (${field.id}) cannot be deleted; include it with its id`);
      }
    }
    this.checkUniqueSortOrders(fields, path);
    return fields;
  }

  private storedField(id: string, group: TemplateGroupView | undefined, path: string): TemplateFieldView | null {
    const home = this.fieldHomes.get(id);
    if (!home) return this.reject(path, 'is not a field of this group; omit id for a new field');
    if (home.groupId !== group?.id) return this.reject(path, `fields cannot move between groups (the field belongs to group ${home.groupId})`);
    if (this.seenFieldIds.has(id)) return this.reject(path, 'appears more than once');
    this.seenFieldIds.add(id);
    return home.field;
  }

  private checkUniqueSortOrders(fields: TemplateFieldView[], path: string): void {
    const seen = new Set<number>();
    for (const field of fields) {
      if (seen.has(field.sortOrder)) this.issue(`${path}.fields`, `sortOrder ${field.sortOrder} is used by more than one field of the group`);
      seen.add(field.sortOrder);
    }
  }

  private customIdentity(input: TemplateFieldInput, path: string): void {
    if (input.isSystemField === true) this.issue(`${path}.isSystemField`, 'cannot create or reassign a system field');
    if (input.systemKey !== undefined && input.systemKey !== null) this.issue(`${path}.systemKey`, 'cannot create or reassign a system field');
  }

  private trimmedName(name: string, path: string): string {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > TEMPLATE_LIMITS.fieldName) this.issue(`${path}.name`, 'must be 1-128 characters after trimming');
    return trimmed;
  }

  private claimKey(key: string, path: string): void {
    const folded = key.toLowerCase();
    if (RESERVED_KEYS.has(folded)) this.issue(`${path}.key`, `"${key}" is reserved for system fields`);
    else if (this.keysSeen.has(folded))
      this.issue(`${path}.key`, `"${key}" is already used by another field of the template (keys are compared ignoring case)`);
    else this.keysSeen.add(folded);
  }

  private newField(input: TemplateFieldInput, path: string, sortOrder: number): TemplateFieldView | null {
    this.customIdentity(input, path);
    if (input.key === undefined) this.issue(`${path}.key`, 'is required for a new field');
    if (input.name === undefined) this.issue(`${path}.name`, 'is required for a new field');
    if (input.type === undefined) this.issue(`${path}.type`, 'is required for a new field');
    if (input.key === undefined || input.name === undefined || input.type === undefined) return null;
    this.claimKey(input.key, path);
    const config = validateFieldConfig(input.type, input.config ?? {}, `${path}.config`);
    for (const issue of config.issues) this.issues.push(issue);
    return {
      id: newOpaqueId('fld'),
      key: input.key,
      name: this.trimmedName(input.name, path),
      type: input.type,
      required: input.required ?? false,
      placeholder: input.placeholder ?? null,
      sortOrder,
      config: config.config,
      isSystemField: false,
      systemKey: null,
    };
  }

  /** An existing custom field: omitted properties keep their values (except sortOrder); a type change migrates config (spec 4.4). */
  private changedField(stored: TemplateFieldView, input: TemplateFieldInput, path: string, sortOrder: number): TemplateFieldView {
    this.customIdentity(input, path);
    if (input.key !== undefined && input.key !== stored.key) this.issue(`${path}.key`, 'is immutable once the field exists');
    this.claimKey(stored.key, path);
    const type = input.type ?? stored.type;
    let config = input.config ?? stored.config;
    if (type !== stored.type) {
      if (typeChangeLosesConfig(stored.type, stored.config, type) && input.typeChangeConfirmed !== true) {
        this.issue(
          `${path}.typeChangeConfirmed`,
          `changing ${stored.type} to ${type} drops configuration (${Object.keys(stored.config).join(', ')}); send typeChangeConfirmed: true`,
        );
      }
      config = input.config ?? migrateConfig(stored.type, stored.config, type);
    }
    const checked = validateFieldConfig(type, config, `${path}.config`);
    for (const issue of checked.issues) this.issues.push(issue);
    return {
      id: stored.id,
      key: stored.key,
      name: input.name !== undefined ? this.trimmedName(input.name, path) : stored.name,
      type,
      required: input.required ?? stored.required,
      placeholder: input.placeholder !== undefined ? input.placeholder : stored.placeholder,
      sortOrder,
      config: checked.config,
      isSystemField: false,
      systemKey: null,
    };
  }

  /** A protected system field: id, key, type, required flag, config and position stay; name and placeholder may change. */
  private systemField(stored: TemplateFieldView, input: TemplateFieldInput, path: string): TemplateFieldView {
    const keep = (property: 'key' | 'type' | 'required' | 'sortOrder') => {
      if (input[property] !== undefined && input[property] !== stored[property])
        this.issue(`${path}.${property}`, `a protected system field keeps its ${property} (${String(stored[property])})`);
    };
    keep('key');
    keep('type');
    keep('required');
    keep('sortOrder');
    if (input.isSystemField === false) this.issue(`${path}.isSystemField`, 'a system field cannot become a custom field');
    if (input.systemKey !== undefined && input.systemKey !== stored.systemKey) this.issue(`${path}.systemKey`, 'cannot reassign a system identity');
    if (input.config !== undefined) {
      const checked = validateSystemConfig(input.config, `${path}.config`);
      for (const issue of checked.issues) this.issues.push(issue);
      if (checked.issues.length === 0 && !sameConfig(input.config, stored.config))
        this.issue(`${path}.config`, 'a protected system field keeps its configuration');
    }
    this.keysSeen.add(stored.key.toLowerCase());
    return {
      ...stored,
      name: input.name !== undefined ? this.trimmedName(input.name, path) : stored.name,
      placeholder: input.placeholder !== undefined ? input.placeholder : stored.placeholder,
    };
  }
}
