"""What every folder of the emulator shares, importing nothing else of it: the emulated
world's constants (account, region, roles, buckets), the emulator's errors (AWS's wire
errors and the emulator's own), the one table of statement handlers, and the thread's
context (which emulator, request and principal it works for)."""
