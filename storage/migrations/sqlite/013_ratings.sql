-- Placeholder of issue 33's shared design (/work/wt/ACH.md): another branch writes this
-- migration; it stands here only so that the numbers stay consecutive. When merging, take
-- the other branch's file.
SELECT 1;
