/** One claimant of a budget: how much it could use and its relative weight. */
export interface BudgetClaim {
  demand: number;
  weight: number;
}

/**
 * Splits an integer `budget` among claims by weight, never giving a claim more than its
 * demand; what small claims leave over is shared again among the rest. Leftover bytes from
 * rounding go to the earliest claims. Deterministic; the result never sums above `budget`.
 *
 * @example
 * ```ts
 * waterFill([{ demand: 100, weight: 1 }, { demand: 10_000, weight: 1 }], 1000); // [100, 900]
 * ```
 */
export function waterFill(claims: readonly BudgetClaim[], budget: number): number[] {
  const allocation = claims.map(() => 0);
  let remaining = Math.max(0, Math.floor(budget));
  let active = claims.map((_, index) => index).filter((index) => (claims[index]?.demand ?? 0) > 0);
  while (active.length > 0 && remaining > 0) {
    const totalWeight = active.reduce((sum, index) => sum + (claims[index]?.weight ?? 1), 0);
    const share = (index: number) => Math.floor((remaining * (claims[index]?.weight ?? 1)) / totalWeight);
    const satisfied = active.filter((index) => (claims[index]?.demand ?? 0) <= share(index));
    if (satisfied.length === 0) {
      let spent = 0;
      for (const index of active) {
        allocation[index] = share(index);
        spent += share(index);
      }
      let leftover = remaining - spent;
      for (const index of active) {
        if (leftover === 0) break;
        if ((allocation[index] ?? 0) < (claims[index]?.demand ?? 0)) {
          allocation[index] = (allocation[index] ?? 0) + 1;
          leftover--;
        }
      }
      break;
    }
    for (const index of satisfied) {
      const demand = claims[index]?.demand ?? 0;
      allocation[index] = demand;
      remaining -= demand;
    }
    active = active.filter((index) => !satisfied.includes(index));
  }
  return allocation;
}
