/** At most this many names are listed when there are few enough to list them all. */
const LIST_ALL_UP_TO = 5;
/** At most this many near names are suggested. */
const SUGGESTIONS = 3;

/**
 * Builds a lookup that explains an unknown name in a bounded number of words: the defined
 * names one or two edits away ("did you mean"), or all of them when there are at most five.
 * Indexing is linear in the defined names (a deletion index), so each lookup costs about
 * the length of the name, however many names are defined.
 *
 * @example
 * ```ts
 * const hint = nameHint(['build', 'test']);
 * hint('biuld'); // ' (did you mean "build"?)'
 * ```
 */
export function nameHint(names: readonly string[]): (unknown: string) => string {
  const near = nearNames(names);
  return (unknown) => {
    const ranked = near(unknown).map((name) => `"${name}"`);
    if (ranked.length > 0) return ` (did you mean ${ranked.join(' or ')}?)`;
    if (names.length === 0) return ' (none defined)';
    if (names.length <= LIST_ALL_UP_TO) return ` (defined: ${names.join(', ')})`;
    return '';
  };
}

/**
 * Builds a lookup of the defined names one or two edits away from a name (case aside), nearest
 * first, at most three: the names it may have been a typo of.
 *
 * @example
 * ```ts
 * nearNames(['shell', 'read_file'])('shel'); // ['shell']
 * nearNames(['shell', 'read_file'])('lookup'); // []
 * ```
 */
export function nearNames(names: readonly string[]): (unknown: string) => string[] {
  let index: Map<string, string[]> | undefined;
  return (unknown) => {
    index ??= deletionIndex(names);
    const near = new Set<string>();
    for (const key of deletions(unknown.toLowerCase()))
      for (const name of index.get(key) ?? []) near.add(name);
    return [...near]
      .map((name) => ({ name, distance: editDistance(unknown.toLowerCase(), name.toLowerCase()) }))
      .filter((candidate) => candidate.distance <= 2)
      .sort((left, right) => left.distance - right.distance || left.name.localeCompare(right.name))
      .slice(0, SUGGESTIONS)
      .map((candidate) => candidate.name);
  };
}

function deletionIndex(names: readonly string[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const name of names) {
    for (const key of deletions(name.toLowerCase())) {
      const bucket = index.get(key);
      if (bucket === undefined) index.set(key, [name]);
      else if (bucket.length < 16) bucket.push(name);
    }
  }
  return index;
}

/** The word itself and every form with one character removed. */
function deletions(word: string): Set<string> {
  const out = new Set<string>([word]);
  for (let index = 0; index < word.length; index++) out.add(word.slice(0, index) + word.slice(index + 1));
  return out;
}

/** Optimal string alignment distance (edits, with adjacent transpositions counting one). */
function editDistance(left: string, right: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= left.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= right.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const previous = rows[i - 1] as number[];
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[left.length] as number[])[right.length] as number;
}
