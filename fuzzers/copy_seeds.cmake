# cmake -DSOURCE=corpus -DDEST=dir -P copy_seeds.cmake: DEST becomes a flat copy of every SOURCE/**/*.gc,
# each named by its path under SOURCE ("dag/diamond_vyre_plan.gc" -> "dag_diamond_vyre_plan.gc").
file(REMOVE_RECURSE ${DEST})
file(MAKE_DIRECTORY ${DEST})
file(GLOB_RECURSE cases RELATIVE ${SOURCE} ${SOURCE}/*.gc)
foreach(case ${cases})
  string(REPLACE "/" "_" name ${case})
  file(COPY_FILE ${SOURCE}/${case} ${DEST}/${name})
endforeach()
list(LENGTH cases count)
message(STATUS "${count} seeds in ${DEST}")
