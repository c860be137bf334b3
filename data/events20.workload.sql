# A sample workload for data/events20: one WHERE clause per line; '-- weight: N' is its relative frequency.
# Used by the README's main command and by notebooks/03_report.ipynb.
country = 'DE'                                        -- weight: 5
status IN ('active', 'banned') AND dt = '2025-01-02'  -- weight: 3
id = 3000                                             -- weight: 10
score BETWEEN 80 AND 95
ts >= TIMESTAMP '2025-01-04 00:00:00' AND tag = 't1'
