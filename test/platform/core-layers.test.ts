/**
 * Owners in their rooms (docs/architecture.md "Layers"): the rooms of src/core stand on floors,
 * and a room imports only rooms on floors below its own, so every arrow between rooms runs down.
 * Within the core, import circles are left only where two entities reference each other.
 */
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../support/import-graph.ts';

/** The floors of src/core, lowest first; rooms on one floor do not import each other. */
const FLOORS: readonly (readonly string[])[] = [['platform'], ['access'], ['outbox'], ['assets'], ['catalogue', 'events', 'live'], ['approvals']];

/** The room of a file under src/core/<room>/; null for the composition root (core.ts, entities.ts) and files outside the core. */
function roomOf(file: string): string | null {
  const match = /^src\/core\/([^/]+)\//.exec(file);
  return match ? match[1]! : null;
}

function floorOf(room: string): number {
  return FLOORS.findIndex((floor) => floor.includes(room));
}

describe('the rooms of the core', () => {
  const graph = importGraph(['src/core']);

  it('every room of src/core stands on a floor', () => {
    const rooms = new Set([...graph.keys()].map(roomOf).filter((room) => room !== null));
    const unplaced = [...rooms].filter((room) => floorOf(room) === -1);
    expect(unplaced, 'put a new room on a floor here and in docs/architecture.md "Layers"').toEqual([]);
  });

  it('an import between two rooms runs down the floors: none runs up or sideways', () => {
    const upward: string[] = [];
    for (const [file, edges] of graph) {
      const room = roomOf(file);
      if (room === null) continue;
      for (const edge of edges) {
        const target = roomOf(edge.to);
        if (target === null || target === room) continue;
        if (floorOf(target) >= floorOf(room)) upward.push(`${file}:${edge.line} (${room}) imports ${edge.to} (${target})`);
      }
    }
    expect(upward, 'move what is imported to the room that owns it, or declare it where the lower room can reach it').toEqual([]);
  });

  it('import circles in the core join entities that reference each other, and nothing else', () => {
    const core = [...graph.keys()].filter((file) => file.startsWith('src/core/'));
    const circles = importCircles(graph, core).filter((circle) => !circle.every((file) => file.endsWith('.entity.ts')));
    expect(circles, 'break the circle: move what both sides use into a module that imports neither').toEqual([]);
  });
});
