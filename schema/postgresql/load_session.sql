-- Session settings of the loader's connections before the index build.
SET maintenance_work_mem = '512MB';
