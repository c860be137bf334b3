# Queries on data/history_events (one WHERE clause per line, -- weight: relative frequency)
status = 'disputed'  -- weight: 5
dt = '2025-03-04' AND country = 'DE'  -- weight: 2
id = 4242  -- weight: 1
