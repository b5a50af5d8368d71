// Fleets in a scenario: each of its `groups` (docs/world.md, "Groups") stands for `count` devices
// placed in an area or on a grid, named from a prefix, spreading a list of apps and booting over a
// spread of time. They are expanded here into plain devices, after the scenario's explicit
// `devices` and in the groups' order, so that everything after (the checks, the lowering, the C
// world) sees devices only. The expansion is deterministic: positions and boot times come from
// the group's seed (default: drawn from the world's seed and the group's index), never from the
// host, so the same file gives the same devices.
import {
  intervalMs, Scenario, ScenarioDevice, ScenarioError, ScenarioGroup,
} from './scenarioTypes';

/** The schema's cap on devices in one world, explicit and grouped together. */
export const MAX_DEVICES = 10_000;
/** A group's boots are spread over this much time unless its `start.spread` says otherwise. */
export const DEFAULT_SPREAD_MS = 1000;

/** A scenario's devices, each with where it comes from in the file (a JSON path: devices[3], or
 * groups[1] for each device of that group) and, for apps, the key that named its app. */
export interface ExpandedDevices {
  devices: ScenarioDevice[];
  at: string[];
  appAt: (string | undefined)[];
}

const MASK64 = (1n << 64n) - 1n;

/** splitmix64: small, well mixed, and the same generator the C world seeds its air with. */
function splitmix(seed: bigint): () => number {
  let state = seed & MASK64;
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    return Number(z >> 11n) / 2 ** 53; // [0, 1) from the top 53 bits
  };
}

/** The group's seed: its own, or one drawn from the world's seed and its index (so groups of one
 * world differ, and a scenario's seed changes them all). */
export function groupSeed(s: Scenario, index: number): bigint {
  const given = s.groups?.[index]?.seed;
  if (given !== undefined) return BigInt(given);
  const next = splitmix(BigInt(s.seed ?? 1) ^ (BigInt(index + 1) * 0x9e3779b97f4a7c15n));
  return BigInt(Math.floor(next() * 2 ** 53));
}

/** Millimetres: positions drawn in an area are kept to what a scenario would write. */
function mm(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** What the schema cannot say about one group. */
function checkGroup(g: ScenarioGroup, file: string, at: string): void {
  const placements = (['area', 'grid', 'position'] as const).filter((k) => g[k] !== undefined);
  if (placements.length > 1) {
    throw new ScenarioError(file, at, `give the placement as one of area, grid or position (got ${placements.join(' and ')})`);
  }
  if (g.app !== undefined && g.apps !== undefined) {
    throw new ScenarioError(file, at, 'give the app as app (one for all) or apps (spread over the group), not both');
  }
  if (g.area && !(g.area.width > 0 && g.area.height > 0)) {
    const key = g.area.width > 0 ? 'height' : 'width';
    throw new ScenarioError(file, `${at}.area.${key}`, 'must be more than 0 m: an area of no size has no room for devices');
  }
  if (g.grid && !(g.grid.spacing > 0)) {
    throw new ScenarioError(file, `${at}.grid.spacing`, 'must be more than 0 m: devices of a grid stand apart');
  }
}

/** The devices of group `index`, in order. */
function groupDevices(s: Scenario, index: number, first: number): ScenarioDevice[] {
  const g = s.groups![index];
  const place = splitmix(groupSeed(s, index));
  // Boot times from a stream of their own: changing the spread leaves the positions as they were.
  const boot = splitmix(groupSeed(s, index) ^ 0x5851f42d4c957f2dn);
  const at = g.start?.at !== undefined ? intervalMs(g.start.at) : 0;
  const spread = g.start?.spread !== undefined ? intervalMs(g.start.spread) : DEFAULT_SPREAD_MS;
  const columns = g.grid?.columns ?? Math.ceil(Math.sqrt(g.count));
  const apps = g.apps ?? (g.app !== undefined ? [g.app] : []);
  const { name, count, app: _app, apps: _apps, area: _area, grid: _grid, start: _start, seed: _seed, ...common } = g;
  const out: ScenarioDevice[] = [];
  for (let k = 0; k < count; k++) {
    const d: ScenarioDevice = { ...common, name: name !== undefined ? `${name}-${k}` : `d${first + k}` };
    if (apps.length) d.app = apps[k % apps.length];
    if (g.area) {
      const x = mm((g.area.x ?? 0) + place() * g.area.width);
      const y = mm((g.area.y ?? 0) + place() * g.area.height);
      d.position = { x, y };
    } else if (g.grid) {
      d.position = { x: mm((g.grid.x ?? 0) + (k % columns) * g.grid.spacing), y: mm((g.grid.y ?? 0) + Math.floor(k / columns) * g.grid.spacing) };
    }
    // Uniform over [at, at + spread): spread 0 boots the whole group at `at`.
    d.start = at + Math.floor(boot() * spread);
    out.push(d);
  }
  return out;
}

/**
 * The scenario's devices with its groups expanded: explicit devices first, then each group's.
 * Refuses (ScenarioError) a group that cannot be placed, a world over MAX_DEVICES and names that
 * clash, each with its JSON path.
 */
export function expandDevices(s: Scenario, file: string): ExpandedDevices {
  const explicit = s.devices ?? (s.groups?.length ? [] : [{}]);
  const devices: ScenarioDevice[] = [...explicit];
  const at = explicit.map((_, i) => `devices[${i}]`);
  const appAt: (string | undefined)[] = explicit.map((d, i) => (d.app !== undefined ? `devices[${i}].app` : undefined));
  let total = explicit.length;
  (s.groups ?? []).forEach((g, i) => {
    const where = `groups[${i}]`;
    total += g.count;
    if (total > MAX_DEVICES) {
      throw new ScenarioError(file, `${where}.count`, `the world would have ${total} devices (devices and groups together); it holds at most ${MAX_DEVICES}`);
    }
    checkGroup(g, file, where);
    const list = groupDevices(s, i, devices.length);
    list.forEach((d, k) => {
      devices.push(d);
      at.push(where);
      appAt.push(g.apps ? `${where}.apps[${k % g.apps.length}]` : g.app !== undefined ? `${where}.app` : undefined);
    });
  });
  // Names are unique across the world: a clash is reported where the later name comes from.
  const seen = new Map<string, number>();
  devices.forEach((d, i) => {
    const name = d.name ?? `d${i}`;
    const before = seen.get(name);
    if (before !== undefined) {
      const other = at[before].startsWith('groups') ? `${at[before]} (its device ${name})` : at[before];
      const mine = at[i].startsWith('groups') ? `${at[i]}.name` : `${at[i]}.name`;
      throw new ScenarioError(file, mine, `'${name}' is also the name of ${other}`);
    }
    seen.set(name, i);
  });
  return { devices, at, appAt };
}
