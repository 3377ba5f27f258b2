import type { DbOrTx } from '@uncle-rpc/db'
import { type AccountUsageParameters, accountDailyUsage, accountHourlyUsage, accountMethodUsage, type MethodTotal, type UsagePoint } from '@uncle-rpc/db/accounts'
import { fillDays, fillHours } from './usageSeries.js'

/** UTC days in an account's usage report (today included). */
export const usageReportDays = 30

/** An account's usage, ready to chart: every day and hour present (zeros where nothing was counted). */
export type AccountUsageReport = {
  /** The last {@link usageReportDays} UTC days, oldest first. */
  daily: UsagePoint[]
  /** The last 24 UTC hours, oldest first. */
  hourly: UsagePoint[]
  /** Calls per method over the same days, most called first. */
  methods: MethodTotal[]
}

/**
 * The usage of an account, or of one of its keys and/or networks: per day, per hour and per
 * method. A key id of another account matches no rows (the queries join on the account).
 */
export async function accountUsage({ db }: { db: DbOrTx }, parameters: AccountUsageParameters): Promise<AccountUsageReport> {
  const [daily, hourly, methods] = await Promise.all([
    accountDailyUsage(db, { ...parameters, days: usageReportDays }),
    accountHourlyUsage(db, parameters),
    accountMethodUsage(db, { ...parameters, days: usageReportDays }),
  ])
  return { daily: fillDays(daily, usageReportDays), hourly: fillHours(hourly), methods }
}
