import { readFileSync } from "node:fs";

/** A field of /proc/<pid>/status in whole MB (Linux: the benches measure the bot's own process). */
function statusMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024);
}

/** VmRSS: the process's resident memory now. */
export const rssMb = (pid: number): number => statusMb(pid, "VmRSS");

/** VmHWM: the most resident memory the process ever had. */
export const peakRssMb = (pid: number): number => statusMb(pid, "VmHWM");
