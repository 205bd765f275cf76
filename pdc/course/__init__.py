"""What the course's notebooks import: the chapters' kit and their practice checks.

They ship inside the ``pdc`` package so that a notebook finds them from any folder: a chapter
opened alone on a hosted service (Colab, Kaggle), where only the package is installed, imports
them as it does in the course folder. :mod:`pdc.course.kit` holds the functions the chapters
share (timing, occupancy, memory sectors); :mod:`pdc.course.practice` the in-chapter exercises;
:mod:`pdc.course.hosted` the first cell of every notebook, which installs the package where it
is missing.
"""
