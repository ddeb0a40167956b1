# The browser pages (gjkctl view / trace, tools/viewer) looked at as a person would (label
# browser): tests/e2e/e2e_browser.py runs a daemon on loopback, gjkctl writes the pages, and
# Debian's Chromium (scripts/deps test) opens them from disk, headless with SwiftShader WebGL,
# driven by puppeteer-core from the build tree's npm ci. Screenshots stay in
# ${CMAKE_BINARY_DIR}/browser-shots. Registered when the viewer is built and Chromium is there.
find_program(GJK_CHROMIUM NAMES chromium PATHS /usr/bin NO_DEFAULT_PATH)
find_program(GJK_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(GJK_VIEWER AND TARGET gjkd AND TARGET gjkctl AND GJK_CHROMIUM
   AND GJK_SYSTEM_PYTHON AND NOT GJK_SANITIZE_THREAD)
  foreach(group view trace python)
    add_test(NAME browser_${group}
             COMMAND ${GJK_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/e2e_browser.py
                     --group ${group}
                     --gjkd $<TARGET_FILE:gjkd> --gjkctl $<TARGET_FILE:gjkctl>
                     --e2e-client $<TARGET_FILE:e2e_client>
                     --python-proto ${CMAKE_BINARY_DIR}/python
                     --source-dir ${PROJECT_SOURCE_DIR})
    set_tests_properties(browser_${group} PROPERTIES TIMEOUT 300 LABELS browser
      ENVIRONMENT "GJKD_NODE=${GJK_NODE};GJKD_NODE_PATH=${CMAKE_BINARY_DIR}/viewer/node_modules;GJKD_CHROMIUM=${GJK_CHROMIUM};GJKD_SHOTS=${CMAKE_BINARY_DIR}/browser-shots")
  endforeach()
elseif(GJK_VIEWER AND NOT GJK_CHROMIUM)
  message(STATUS "browser tests: off (no /usr/bin/chromium; scripts/deps test installs it)")
endif()
