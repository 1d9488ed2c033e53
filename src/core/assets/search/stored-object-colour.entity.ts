import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { StoredObject } from '../storage/stored-object.entity.ts';
import { STORED_OBJECT_COLOURS_TRIGGERS } from './search-triggers.ts';

/**
 * One dominant colour of a stored object's image (colour search, docs/search.md): CIELAB
 * coordinates and the share of the image area it covers, in percent. Computed once at import;
 * the bytes never change, so neither does the palette. The GiST index on (team, L, a, b) as a cube
 * finds the colours near a requested one with a box query; the exact ΔE check follows.
 */
export const StoredObjectColour = defineEntity({
  name: 'StoredObjectColour',
  tableName: 'stored_object_colours',
  indexes: [
    {
      name: 'stored_object_colours_team_lab_gist',
      expression: 'create index "stored_object_colours_team_lab_gist" on "stored_object_colours" using gist (cube(array["team_id", "l", "a", "b"]::float8[]))',
    },
  ],
  triggers: STORED_OBJECT_COLOURS_TRIGGERS,
  properties: {
    object: () => p.manyToOne(StoredObject).primary().deleteRule('cascade'),
    position: p.smallint().primary(),
    team: () => p.manyToOne(Team),
    l: p.float().columnType('real'),
    a: p.float().columnType('real'),
    b: p.float().columnType('real'),
    rgb: p.string().length(6),
    share: p.float().columnType('real'),
  },
});
